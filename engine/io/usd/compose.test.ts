import { describe, expect, it } from 'vitest';
import { openStage, type UsdStage } from './compose';
import { UsdError } from './errors';
import { memResolver } from './testing';
import { UsdList } from './values';

const stageOf = (files: Record<string, string | Uint8Array>, entry = 'root.usda'): Promise<UsdStage> =>
  openStage(entry, memResolver(files));

describe('composition', () => {
  it('applies sublayers strongest first (recursively)', async () => {
    const s = await stageOf({
      'root.usda': `#usda 1.0
(
    subLayers = [@./strong.usda@, @./weak.usda@]
)
over "A" { float x = 1 }
`,
      'strong.usda': `#usda 1.0
(
    subLayers = [@./nested/deep.usda@]
)
def Xform "A" { float x = 2
 float y = 2 }
`,
      'weak.usda': `#usda 1.0
def Scope "A" { float x = 3
 float y = 3
 float z = 3 }
def "B" {}
`,
      'nested/deep.usda': `#usda 1.0
over "A" { float w = 4
 float y = 4 }
`,
    });
    const a = s.prim('/A')!;
    expect(a.typeName).toBe('Xform'); // strongest authored type
    expect(a.attr('x')).toBe(1);
    expect(a.attr('y')).toBe(2); // strong beats its own sublayer
    expect(a.attr('w')).toBe(4);
    expect(a.attr('z')).toBe(3);
    expect(s.prim('/B')).toBeDefined();
    expect(s.rootStack.layers.map((l) => l.identifier)).toEqual([
      'root.usda',
      'strong.usda',
      'nested/deep.usda',
      'weak.usda',
    ]);
  });

  it('composes references with a target path, remapping namespace and relationship targets', async () => {
    const s = await stageOf({
      'root.usda': `#usda 1.0
def Xform "Robot" (
    prepend references = @./lib/arm.usda@</Lib/Arm>
)
{
    float local = 1
    over "link" { float mass = 9 }
}
`,
      'lib/arm.usda': `#usda 1.0
def "Lib" {
    def Xform "Arm" {
        float mass = 1
        float local = 5
        rel target = </Lib/Arm/link>
        def Cube "link" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) {
            float mass = 2
            rel physics:body0 = </Lib/Arm>
            rel outside = </Elsewhere>
        }
    }
}
`,
    });
    const r = s.prim('/Robot')!;
    expect(r.attr('local')).toBe(1);
    expect(r.attr('mass')).toBe(1);
    expect(r.rel('target')).toEqual(['/Robot/link']);
    const link = s.prim('/Robot/link')!;
    expect(link.typeName).toBe('Cube');
    expect(link.isDefined).toBe(true);
    expect(link.attr('mass')).toBe(9);
    expect(link.hasApi('PhysicsCollisionAPI')).toBe(true);
    expect(link.rel('physics:body0')).toEqual(['/Robot']);
    expect(link.rel('outside')).toEqual([]); // outside the referenced namespace: dropped
    expect(s.prim('/Lib')).toBeUndefined();
  });

  it('follows defaultPrim, internal references, payloads and instanceable prims', async () => {
    const s = await stageOf({
      'root.usda': `#usda 1.0
def "A" ( references = @./lib.usda@ ) {}
def "B" ( references = </Proto> ) {}
def "C" ( payload = @./lib.usda@</Other> ) {}
def "D" ( instanceable = true
 references = @./lib.usda@ ) {}
class "Proto" { int p = 7 }
`,
      'lib.usda': `#usda 1.0
(
    defaultPrim = "Default"
)
def Sphere "Default" { double radius = 2 }
def Cube "Other" { double size = 3 }
`,
    });
    expect(s.prim('/A')!.typeName).toBe('Sphere');
    expect(s.prim('/A')!.attr('radius')).toBe(2);
    expect(s.prim('/B')!.attr('p')).toBe(7);
    expect(s.prim('/C')!.attr('size')).toBe(3);
    expect(s.prim('/D')!.attr('radius')).toBe(2);
    expect([...s.traverse()].map((p) => p.path)).toEqual(['/A', '/B', '/C', '/D']); // the class is not traversed
  });

  it('selects variants, also when a stronger layer authors the selection', async () => {
    const files = {
      'root.usda': `#usda 1.0
def "Car" ( references = @./car.usda@ ) {}
def "Car2" (
    references = @./car.usda@
    variants = { string color = "blue" }
) {}
def "Car3" ( references = @./car.usda@</Plain> ) {}
`,
      'car.usda': `#usda 1.0
(
    defaultPrim = "Car"
)
def Xform "Car" (
    variants = { string color = "red" }
    prepend variantSets = "color"
)
{
    variantSet "color" = {
        "red" { float hue = 0
                def Sphere "lamp" {} }
        "blue" { float hue = 240 }
    }
}
def Xform "Plain" (
    prepend variantSets = "color"
)
{
    variantSet "color" = { "red" { float hue = 0 } }
}
`,
    };
    const s = await stageOf(files);
    expect(s.prim('/Car')!.attr('hue')).toBe(0);
    expect(s.prim('/Car/lamp')!.typeName).toBe('Sphere');
    expect(s.prim('/Car2')!.attr('hue')).toBe(240);
    expect(s.prim('/Car2/lamp')).toBeUndefined();
    expect(s.prim('/Car3')!.attr('hue')).toBeUndefined(); // no selection: no variant opinions
  });

  it('composes inherits and specializes (weakest)', async () => {
    const s = await stageOf({
      'root.usda': `#usda 1.0
class "_class_Leg" { float length = 1
 float width = 1
 def "Foot" { float size = 1 } }
class "_base" { float length = 9
 float depth = 2 }
def "Leg" (
    inherits = </_class_Leg>
    specializes = </_base>
)
{
    float width = 5
}
`,
    });
    const leg = s.prim('/Leg')!;
    expect(leg.attr('width')).toBe(5);
    expect(leg.attr('length')).toBe(1);
    expect(leg.attr('depth')).toBe(2);
    expect(s.prim('/Leg/Foot')!.attr('size')).toBe(1);
  });

  it('applies list-op semantics to apiSchemas and relationship targets across layers', async () => {
    const s = await stageOf({
      'root.usda': `#usda 1.0
(
    subLayers = [@./weak.usda@]
)
over "P" (
    delete apiSchemas = ["A"]
    append apiSchemas = ["C"]
)
{
    prepend rel t = </x0>
}
over "Q" ( apiSchemas = ["Only"] ) {}
`,
      'weak.usda': `#usda 1.0
def "P" ( prepend apiSchemas = ["A", "B"] ) {
    rel t = [</x1>, </x2>]
}
def "Q" ( prepend apiSchemas = ["Lost"] ) {}
`,
    });
    expect(s.prim('/P')!.apiSchemas).toEqual(['B', 'C']);
    expect(s.prim('/P')!.rel('t')).toEqual(['/x0', '/x1', '/x2']);
    expect(s.prim('/Q')!.apiSchemas).toEqual(['Only']);
  });

  it('does not traverse over-only, inactive or abstract prims', async () => {
    const s = await stageOf({
      'root.usda': `#usda 1.0
over "Ghost" { def "Child" {} }
def "Off" ( active = false ) { def "Child" {} }
def "On" {}
`,
    });
    expect([...s.traverse()].map((p) => p.path)).toEqual(['/On']);
    expect(s.prim('/Ghost')!.isDefined).toBe(false);
  });

  it('resolves references inside a USDZ package', async () => {
    const enc = (t: string) => new TextEncoder().encode(t);
    const zip = storedZip([
      ['root.usda', enc('#usda 1.0\ndef "R" ( references = @./parts/geo.usda@ ) {}\n')],
      ['parts/geo.usda', enc('#usda 1.0\n(\n defaultPrim = "G"\n)\ndef Cube "G" { double size = 4 }\n')],
    ]);
    const s = await stageOf({ 'pkg.usdz': zip }, 'pkg.usdz');
    expect(s.prim('/R')!.typeName).toBe('Cube');
    expect(s.prim('/R')!.attr('size')).toBe(4);
  });

  it('warns (and continues) on missing layers', async () => {
    const s = await stageOf({
      'root.usda': `#usda 1.0
(
    subLayers = [@./gone.usda@]
)
def "A" ( references = @./missing.usda@</X> ) { float v = 1 }
`,
    });
    expect(s.prim('/A')!.attr('v')).toBe(1);
    expect(s.warnings.some((w) => w.includes('missing.usda'))).toBe(true);
    expect(s.warnings.some((w) => w.includes('gone.usda'))).toBe(true);
  });

  it('rejects reference cycles, sublayer cycles and over-deep arcs without hanging', async () => {
    const cyc = (p: Promise<unknown>) =>
      expect(p).rejects.toSatisfy((e: unknown) => e instanceof UsdError && e.kind === 'composition');
    await cyc(
      stageOf({
        'root.usda': '#usda 1.0\ndef "A" ( references = @./b.usda@ ) {}\n',
        'b.usda': '#usda 1.0\n(\n defaultPrim = "B"\n)\ndef "B" ( references = @./c.usda@ ) {}\n',
        'c.usda': '#usda 1.0\n(\n defaultPrim = "C"\n)\ndef "C" ( references = @./b.usda@ ) {}\n',
      }),
    );
    await cyc(stageOf({ 'root.usda': '#usda 1.0\ndef "A" ( references = </A> ) {}\n' }));
    await cyc(
      stageOf({
        'root.usda':
          '#usda 1.0\ndef "A" ( references = </B> ) {}\ndef "B" { def "C" ( references = </A> ) {} }\n',
      }),
    );
    await cyc(
      stageOf({
        'root.usda': '#usda 1.0\n(\n subLayers = [@./s.usda@]\n)\n',
        's.usda': '#usda 1.0\n(\n subLayers = [@./root.usda@]\n)\n',
      }),
    );
    // a long chain of distinct layers hits the depth limit
    const files: Record<string, string> = {};
    for (let i = 0; i < 80; i++) {
      files[`l${i}.usda`] =
        `#usda 1.0\n(\n defaultPrim = "P"\n)\ndef "P" ( references = @./l${i + 1}.usda@ ) {}\n`;
    }
    files['l80.usda'] = '#usda 1.0\n(\n defaultPrim = "P"\n)\ndef "P" {}\n';
    await cyc(openStage('l0.usda', memResolver(files)));
  });

  it('keeps layer metadata of the root layer', async () => {
    const s = await stageOf({
      'root.usda': '#usda 1.0\n(\n upAxis = "Y"\n metersPerUnit = 0.01\n)\ndef "A" { token[] t = ["a"] }\n',
    });
    expect(s.upAxis).toBe('Y');
    expect(s.metersPerUnit).toBe(0.01);
    expect(s.prim('/A')!.attr('t')).toBeInstanceOf(UsdList);
  });
});

/** a stored-only zip of the given files */
function storedZip(files: [string, Uint8Array][]): Uint8Array {
  const chunks: number[] = [];
  const central: number[] = [];
  const u16 = (a: number[], v: number) => a.push(v & 255, (v >>> 8) & 255);
  const u32 = (a: number[], v: number) =>
    a.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255);
  for (const [name, data] of files) {
    const nb = Array.from(new TextEncoder().encode(name));
    const off = chunks.length;
    u32(chunks, 0x04034b50);
    for (let i = 0; i < 7; i++) u16(chunks, 0);
    u32(chunks, data.length);
    u32(chunks, data.length);
    u16(chunks, nb.length);
    u16(chunks, 0);
    chunks.push(...nb, ...data);
    u32(central, 0x02014b50);
    for (let i = 0; i < 8; i++) u16(central, 0);
    u32(central, data.length);
    u32(central, data.length);
    u16(central, nb.length);
    for (let i = 0; i < 6; i++) u16(central, 0);
    u32(central, off);
    central.push(...nb);
  }
  const cdOff = chunks.length;
  const out = [...chunks, ...central];
  u32(out, 0x06054b50);
  u16(out, 0);
  u16(out, 0);
  u16(out, files.length);
  u16(out, files.length);
  u32(out, central.length);
  u32(out, cdOff);
  u16(out, 0);
  return Uint8Array.from(out);
}
