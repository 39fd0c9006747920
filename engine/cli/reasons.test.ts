/**
 * Every failure has a reason (issue 54 item 2): a run that ends in invalid_input names the step, the
 * world, the joint and the quantity, in the text and in --json, and the JSON document of a failed
 * run validates against the JSON Schema the CLI publishes (`sim schema run`), not only the zod one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { locateNonfinite } from '../pipeline';
import { ModelBuilder } from '../model';

const root = path.resolve(__dirname, '../..');

type Schema = Record<string, unknown>;
/**
 * The first violation of a draft 2020-12 schema by a JSON value, for the keywords zod's
 * generator writes (type, properties, required, additionalProperties, items, prefixItems, min/maxItems, anyOf,
 * enum, const), or '' when it validates
 */
function violation(s: Schema, v: unknown, at = '$'): string {
  const kind = (x: unknown) =>
    x === null ? 'null' : Array.isArray(x) ? 'array' : Number.isInteger(x) ? 'integer' : typeof x;
  if (s.anyOf)
    return (s.anyOf as Schema[]).some((o) => !violation(o, v, at)) ? '' : `${at}: matches no anyOf branch`;
  if ('const' in s && v !== s.const) return `${at}: not ${JSON.stringify(s.const)}`;
  if (s.enum && !(s.enum as unknown[]).includes(v)) return `${at}: not one of ${JSON.stringify(s.enum)}`;
  if (s.type) {
    const k = kind(v);
    const ok = k === s.type || (s.type === 'number' && k === 'integer');
    if (!ok) return `${at}: ${k}, expected ${String(s.type)}`;
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems)
      return `${at}: fewer than ${s.minItems} items`;
    if (typeof s.maxItems === 'number' && v.length > s.maxItems)
      return `${at}: more than ${s.maxItems} items`;
    const pre = (s.prefixItems ?? []) as Schema[];
    for (let i = 0; i < v.length; i++) {
      const item = i < pre.length ? pre[i] : (s.items as Schema | undefined);
      const e = item ? violation(item, v[i], `${at}[${i}]`) : '';
      if (e) return e;
    }
  } else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const r of (s.required ?? []) as string[]) if (!(r in o)) return `${at}: missing ${r}`;
    const props = (s.properties ?? {}) as Record<string, Schema>;
    for (const [k, x] of Object.entries(o)) {
      const sub: unknown = props[k] ?? s.additionalProperties;
      if (sub === false) return `${at}: unexpected key ${k}`;
      const e = sub && typeof sub === 'object' ? violation(sub as Schema, x, `${at}.${k}`) : '';
      if (e) return e;
    }
  }
  return '';
}
const sim = (args: string[]) =>
  spawnSync(process.execPath, ['scripts/cli.mjs', ...args], { cwd: root, encoding: 'utf8' });

describe('failure reasons', () => {
  // gravity of −1e308 m/s²: finite, but v* = v + dt·g overflows in the first step
  const dir = mkdtempSync(path.join(tmpdir(), 'sap-reasons-'));
  const scene = path.join(dir, 'overflow.yaml');
  writeFileSync(
    scene,
    `schema_version: 1
name: overflow
simulation: { dt: 0.01, num_worlds: 2 }
builder: { gravity: -1e308 }
ground: true
bodies:
  - id: box
    transform: { p: [0, 0, 1] }
    shapes: [{ type: box, hx: 0.1, hy: 0.1, hz: 0.1 }]
joints:
  - { id: lid, type: free, parent: world, child: box }
`,
  );

  it('invalid_input names the step, the world, the joint and the quantity (text and JSON)', () => {
    const text = sim(['run', scene, '--steps', '3']);
    expect(text.status).toBe(1);
    expect(text.stderr).toMatch(
      /invalid_input: step 1 \(t = 0\.0100000 s\): world 0: non-finite joint 'lid' \(DOF \d of it\): free-motion velocity v\* = (NaN|-Infinity)/,
    );
    const json = sim(['run', scene, '--steps', '3', '--json']);
    const doc = JSON.parse(json.stdout) as { stats: { status: string; reason: string } };
    expect(doc.stats.status).toBe('invalid_input');
    expect(doc.stats.reason).toMatch(/world 1: non-finite joint 'lid'/);
    // the published schema of the run document
    const schema = JSON.parse(sim(['schema', 'run']).stdout) as Schema;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(violation(schema, doc)).toBe('');
    // the checker does fail: a non-finite number written as null, or as a string, is refused
    const broken = JSON.parse(json.stdout) as { dt: unknown };
    broken.dt = 'Infinity';
    expect(violation(schema, broken)).toBe('$.dt: string, expected number');
    broken.dt = null;
    expect(violation(schema, broken)).toBe('$.dt: null, expected number');
  });

  it('locateNonfinite maps world-relative DOF and coordinate indices to joints', () => {
    const b = new ModelBuilder();
    const a = b.addBody({ label: 'a', mass: 1, inertia: [1, 1, 1] });
    const c = b.addBody({ label: 'c', mass: 1, inertia: [1, 1, 1] });
    b.addJoint({ type: 'free', parent: -1, child: a, label: 'base' });
    b.addJoint({ type: 'revolute', parent: a, child: c, axis: [0, 0, 1], label: 'hinge' });
    b.num_worlds = 2;
    const m = b.finalize();
    expect(locateNonfinite(m, 1, 'v_star[6] = NaN')).toBe(
      "joint 'hinge' (DOF 0 of it): free-motion velocity v* = NaN",
    );
    expect(locateNonfinite(m, 0, 'v[4] = Infinity')).toBe(
      "joint 'base' (DOF 4 of it): solved velocity v = Infinity",
    );
    expect(locateNonfinite(m, 1, 'q[7] = NaN')).toBe(
      "joint 'hinge' (coordinate 0 of it): position coordinate q = NaN",
    );
    expect(locateNonfinite(m, 0, 'free-motion dynamics matrix (not positive definite)')).toBe(
      'free-motion dynamics matrix (not positive definite)',
    );
  });
});
