import { describe, expect, it } from 'vitest';
import { UsdError } from './errors';
import { parseUsda } from './usda';
import { AssetPath, ListOp, NumArray, SdfPathValue, UsdDict, UsdList, UsdReference } from './values';

const LAYER = `#usda 1.0
(
    "layer documentation"
    customLayerData = {
        dictionary cameraSettings = {
            double3 "odd:key" = (1, 2, 3)
            string boundCamera = "/Cam"
        }
    }
    defaultPrim = "Robot"
    metersPerUnit = 0.01
    kilogramsPerUnit = 1
    upAxis = "Y"
    subLayers = [
        @./a.usda@ (offset = 10; scale = 2),
        @./b.usda@
    ]
    timeCodesPerSecond = 24
)

# a comment
// another comment
/* a block
   comment */
def Xform "Robot" (
    prepend apiSchemas = ["PhysicsArticulationRootAPI", "PhysxArticulationAPI"]
    append apiSchemas = "Extra"
    delete apiSchemas = ["Gone"]
    kind = "component"
    instanceable = true
    active = true
    customData = { int n = 3; string s = "x" }
    prepend references = [@./lib.usd@</Lib/Arm> (offset = 1), </Internal>]
    payload = @./payload.usda@
    inherits = </_class_Robot>
    specializes = [</_base>]
    variants = { string color = "red" }
    prepend variantSets = "color"
)
{
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]
    double3 xformOp:translate = (1, -2.5e-1, .5)
    quatf xformOp:orient = (0.7071068, 0, 0, 0.7071068)
    matrix4d xformOp:transform = ( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (4, 5, 6, 1) )
    custom float physics:mass = 3.5
    float limit = inf
    float negLimit = -inf
    float notANumber = nan
    bool flag = 1
    int[] idx = [0, 1, 2, -3]
    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    asset tex = @./textures/a.png@
    asset tricky = @@@weird@path@@@
    string esc = "a\\"b\\n\\x41\\101"
    string single = 'it\\'s'
    string multi = """line1
line2"""
    token t = "tok"
    token[] toks = ["a", "b"]
    int[] empty = []
    float3 blocked = None
    float animated.timeSamples = {
        10: 5,
        0: 1.5,
    }
    float both = 7
    float both.timeSamples = { 1: 8 }
    color3f[] primvars:displayColor = [(0.9, 0.6, 0.2)] (
        interpolation = "constant"
        allowedTokens = []
        customData = { dictionary d = { bool b = 1 } }
    )
    rel physics:body0 = </Robot/base>
    rel targets = [</a>, </b/c.attr>]
    prepend rel material:binding = </Mats/Steel>
    rel emptyRel
    float inputs:x.connect = </Mat/Shader.outputs:out>
    reorder nameChildren = ["base", "arm"]

    def "base" (
        doc = """a doc"""
    )
    {
    }

    over "arm"
    {
        def Cube "geom" { double size = 2 }
    }

    variantSet "color" = {
        "red" (
            doc = "red variant"
        ) {
            float shade = 1
            def Sphere "bulb" {}
        }
        "blue" {
            float shade = 2
        }
    }
}

class "_class_Robot"
{
    float classVal = 3
}
`;

describe('USDA parser', () => {
  const L = parseUsda(LAYER, 'test.usda');

  it('reads layer metadata', () => {
    expect(L.info).toMatchObject({
      upAxis: 'Y',
      metersPerUnit: 0.01,
      kilogramsPerUnit: 1,
      defaultPrim: 'Robot',
    });
    expect(L.info.subLayers).toEqual(['./a.usda', './b.usda']);
    expect(L.meta.get('doc')).toBe('layer documentation');
    expect(L.meta.get('timeCodesPerSecond')).toBe(24);
    const cld = L.meta.get('customLayerData') as UsdDict;
    const cam = cld.get('cameraSettings') as UsdDict;
    expect(cam.get('odd:key')).toEqual([1, 2, 3]);
    expect(cam.get('boundCamera')).toBe('/Cam');
  });

  it('reads specifiers, types and the prim tree', () => {
    const robot = L.primAt('/Robot')!;
    expect(robot.specifier).toBe('def');
    expect(robot.typeName).toBe('Xform');
    expect(robot.children.map((c) => c.name)).toEqual(['base', 'arm']);
    expect(L.primAt('/Robot/base')!.typeName).toBe('');
    expect(L.primAt('/Robot/base')!.meta.get('doc')).toBe('a doc');
    expect(L.primAt('/Robot/arm')!.specifier).toBe('over');
    expect(L.primAt('/Robot/arm/geom')!.typeName).toBe('Cube');
    expect(L.primAt('/Robot/arm/geom')!.props.get('size')!.value).toBe(2);
    expect(L.primAt('/_class_Robot')!.specifier).toBe('class');
  });

  it('reads prim metadata and list ops', () => {
    const r = L.primAt('/Robot')!;
    const api = r.listOp('apiSchemas')!;
    expect(api.prepend).toEqual(['PhysicsArticulationRootAPI', 'PhysxArticulationAPI']);
    expect(api.append).toEqual(['Extra']);
    expect(api.delete).toEqual(['Gone']);
    expect(api.isExplicit).toBe(false);
    expect(r.meta.get('kind')).toBe('component');
    expect(r.meta.get('instanceable')).toBe(true);
    expect(r.meta.get('active')).toBe(true);
    expect((r.meta.get('customData') as UsdDict).get('n')).toBe(3);
    const refs = r.listOp('references')!;
    expect(refs.prepend).toHaveLength(2);
    const [ext, internal] = refs.prepend as UsdReference[];
    expect(ext).toMatchObject({
      assetPath: './lib.usd',
      primPath: '/Lib/Arm',
      layerOffset: { offset: 1, scale: 1 },
    });
    expect(internal).toMatchObject({ assetPath: '', primPath: '/Internal' });
    const pl = r.listOp('payload')!;
    expect(pl.isExplicit).toBe(true);
    expect((pl.explicit[0] as UsdReference).assetPath).toBe('./payload.usda');
    expect(r.listOp('inherits')!.explicit).toEqual(['/_class_Robot']);
    expect(r.listOp('specializes')!.explicit).toEqual(['/_base']);
    expect((r.meta.get('variants') as UsdDict).get('color')).toBe('red');
    expect(r.listOp('variantSetNames')!.prepend).toEqual(['color']);
  });

  it('reads attribute values of every kind', () => {
    const p = L.primAt('/Robot')!.props;
    const v = (n: string) => p.get(n)!.value;
    expect(v('xformOpOrder')).toBeInstanceOf(UsdList);
    expect(p.get('xformOpOrder')!.variability).toBe('uniform');
    expect(p.get('xformOpOrder')!.typeName).toBe('token[]');
    expect(v('xformOp:translate')).toEqual([1, -0.25, 0.5]);
    expect(v('xformOp:orient')).toEqual([0.7071068, 0, 0, 0.7071068]); // (w, x, y, z) as written
    expect(v('xformOp:transform')).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 4, 5, 6, 1]);
    expect(v('physics:mass')).toBe(3.5);
    expect(p.get('physics:mass')!.custom).toBe(true);
    expect(v('limit')).toBe(Infinity);
    expect(v('negLimit')).toBe(-Infinity);
    expect(Number.isNaN(v('notANumber'))).toBe(true);
    expect(v('flag')).toBe(true);
    const idx = v('idx') as NumArray;
    expect(Array.from(idx.data)).toEqual([0, 1, 2, -3]);
    const pts = v('points') as NumArray;
    expect(pts.width).toBe(3);
    expect(pts.length).toBe(3);
    expect(Array.from(pts.data)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0]);
    expect(v('tex')).toEqual(new AssetPath('./textures/a.png'));
    expect(v('tricky')).toEqual(new AssetPath('weird@path'));
    expect(v('esc')).toBe('a"b\nAA');
    expect(v('single')).toBe("it's");
    expect(v('multi')).toBe('line1\nline2');
    expect(v('t')).toBe('tok');
    expect((v('toks') as UsdList).items).toEqual(['a', 'b']);
    expect((v('empty') as NumArray).length).toBe(0);
    expect(v('blocked')).toBeNull();
    expect(p.get('animated')!.value).toBeUndefined();
    expect(p.get('animated')!.firstSample).toBe(1.5); // the earliest time, not the first written
    expect(p.get('both')!.value).toBe(7);
    expect(p.get('both')!.firstSample).toBe(8);
  });

  it('reads property metadata', () => {
    const c = L.primAt('/Robot')!.props.get('primvars:displayColor')!;
    expect(c.meta!.get('interpolation')).toBe('constant');
    expect(c.meta!.get('allowedTokens')).toBeInstanceOf(NumArray); // an empty list
    expect(((c.meta!.get('customData') as UsdDict).get('d') as UsdDict).get('b')).toBe(true);
  });

  it('reads relationships and connections as list ops', () => {
    const p = L.primAt('/Robot')!.props;
    expect(p.get('physics:body0')!.kind).toBe('relationship');
    expect(p.get('physics:body0')!.targets!.explicit).toEqual(['/Robot/base']);
    expect(p.get('targets')!.targets!.explicit).toEqual(['/a', '/b/c.attr']);
    expect(p.get('material:binding')!.targets!.prepend).toEqual(['/Mats/Steel']);
    expect(p.get('emptyRel')!.targets).toBeUndefined();
    expect(p.get('inputs:x')!.connections!.explicit).toEqual(['/Mat/Shader.outputs:out']);
  });

  it('reads variant sets', () => {
    const r = L.primAt('/Robot')!;
    const set = r.variantSets.get('color')!;
    expect([...set.keys()]).toEqual(['red', 'blue']);
    expect(set.get('red')!.props.get('shade')!.value).toBe(1);
    expect(set.get('red')!.meta.get('doc')).toBe('red variant');
    expect(set.get('blue')!.props.get('shade')!.value).toBe(2);
    expect(L.primAt('/Robot{color=red}bulb')!.typeName).toBe('Sphere');
    expect(L.primAt('/Robot{color=red}/bulb')!.typeName).toBe('Sphere');
  });

  it('accepts paths, None list ops and values in dictionaries', () => {
    const L2 = parseUsda(
      `#usda 1.0
def "A" (
    references = None
    apiSchemas = []
    customData = { token[] list = ["x"]; double2 d2 = (1, 2) }
)
{
    double2[] pairs = [(1, 2), (3, 4)]
    matrix4d[] mats = [( (1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1) )]
    string[] names = ["p", 'q']
    rel r = None
}
`,
      'x.usda',
    );
    const a = L2.primAt('/A')!;
    expect(a.listOp('references')!.isExplicit).toBe(true);
    expect(a.listOp('references')!.explicit).toEqual([]);
    expect(a.listOp('apiSchemas')!.isExplicit).toBe(true);
    expect((a.props.get('pairs')!.value as NumArray).width).toBe(2);
    expect((a.props.get('mats')!.value as NumArray).width).toBe(16);
    expect((a.props.get('names')!.value as UsdList).items).toEqual(['p', 'q']);
    expect(a.props.get('r')!.targets!.isExplicit).toBe(true);
    expect(((a.meta.get('customData') as UsdDict).get('d2') as number[])[1]).toBe(2);
  });

  it('keeps path values in generic positions', () => {
    const L3 = parseUsda('#usda 1.0\ndef "A" { custom string p = "x" }\n', 'y.usda');
    expect(L3.primAt('/A')!.props.get('p')!.value).toBe('x');
    const L4 = parseUsda('#usda 1.0\n(\n relocates = { </a>: </b> }\n)\n', 'z.usda');
    expect((L4.meta.get('relocates') as UsdDict).get('/a')).toEqual(new SdfPathValue('/b'));
  });

  it('merges repeated list-op edits of one key', () => {
    const L5 = parseUsda(
      '#usda 1.0\ndef "A" (\n prepend apiSchemas = ["X"]\n append apiSchemas = ["Y"]\n)\n{}\n',
      'w.usda',
    );
    const op = L5.primAt('/A')!.listOp('apiSchemas') as ListOp<string>;
    expect(op.prepend).toEqual(['X']);
    expect(op.append).toEqual(['Y']);
  });
});

describe('USDA errors carry the layer, line and column', () => {
  const bad = (text: string): UsdError => {
    try {
      parseUsda(text, 'bad.usda');
    } catch (e) {
      expect(e).toBeInstanceOf(UsdError);
      return e as UsdError;
    }
    throw new Error('expected a UsdError');
  };

  it('rejects a missing header', () => {
    const e = bad('def "A" {}\n');
    expect(e.kind).toBe('syntax');
    expect(e.location).toMatchObject({ layer: 'bad.usda', line: 1, column: 1 });
  });

  it('locates an unterminated string', () => {
    const e = bad('#usda 1.0\ndef "A" {\n    string s = "abc\n}\n');
    expect(e.location).toMatchObject({ line: 3, column: 16 });
    expect(e.reason).toMatch(/string/);
  });

  it('locates a bad token', () => {
    const e = bad('#usda 1.0\ndef Xform "A"\n{\n    float x = = 3\n}\n');
    expect(e.location).toMatchObject({ line: 4, column: 15 });
    expect(e.message).toMatch(/^bad\.usda:4:15: /);
  });

  it('rejects an unclosed prim', () => {
    const e = bad('#usda 1.0\ndef "A" {\n');
    expect(e.reason).toMatch(/end of file/);
    expect(e.location.line).toBe(3);
  });

  it('rejects an unterminated block comment, asset path and path', () => {
    expect(bad('#usda 1.0\n/* never closed\n').location.line).toBe(2);
    expect(bad('#usda 1.0\ndef "A" { asset a = @abc\n }').reason).toMatch(/asset path/);
    expect(bad('#usda 1.0\ndef "A" { rel r = </abc\n }').reason).toMatch(/path/);
  });

  it('rejects nesting deeper than the limit', () => {
    const deep = '#usda 1.0\ndef "A" { float x = ' + '('.repeat(400) + '1' + ')'.repeat(400) + ' }\n';
    expect(bad(deep).reason).toMatch(/nesting/);
  });

  it('rejects invalid prim names and property suffixes', () => {
    expect(bad('#usda 1.0\ndef "1bad" {}\n').reason).toMatch(/prim name/);
    expect(bad('#usda 1.0\ndef "A" { float x.bogus = 1 }\n').reason).toMatch(/suffix/);
  });
});
