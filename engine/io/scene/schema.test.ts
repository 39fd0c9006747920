/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, it } from 'vitest';
import { SOLVER_OPTION_KEYS, INERT_SOLVER_OPTIONS } from '../../sap/options';
import { SceneValidationError } from './errors';
import { sceneJsonSchema, POST_BUILD_OPS, type JsonSchema } from './schema';
import { parseSceneText } from './source';
import { chainScene, readScene, sceneFiles } from './testing';
import { assertValidScene, validateScene } from './validate';

/** a tiny validator for the JSON-Schema subset emitted by toJsonSchema; returns the error paths */
function jsonValidate(schema: JsonSchema, v: unknown, p = ''): string[] {
  const errs: string[] = [];
  const s = schema as Record<string, unknown>;
  if (s.anyOf) {
    const ok = (s.anyOf as JsonSchema[]).some((a) => jsonValidate(a, v, p).length === 0);
    return ok ? [] : [`${p}: anyOf`];
  }
  if (s.oneOf) {
    const n = (s.oneOf as JsonSchema[]).filter((a) => jsonValidate(a, v, p).length === 0).length;
    return n === 1 ? [] : [`${p}: oneOf matched ${n}`];
  }
  if ('const' in s && v !== s.const) return [`${p}: const`];
  if (s.enum && !(s.enum as unknown[]).includes(v)) return [`${p}: enum`];
  const type = s.type as string | undefined;
  const typeOk =
    type === undefined ||
    (type === 'number' && typeof v === 'number') ||
    (type === 'integer' && Number.isInteger(v)) ||
    (type === 'string' && typeof v === 'string') ||
    (type === 'boolean' && typeof v === 'boolean') ||
    (type === 'null' && v === null) ||
    (type === 'array' && Array.isArray(v)) ||
    (type === 'object' && typeof v === 'object' && v !== null && !Array.isArray(v));
  if (!typeOk) return [`${p}: type ${type}`];
  if (typeof v === 'string' && typeof s.pattern === 'string' && !new RegExp(s.pattern).test(v))
    return [`${p}: pattern`];
  if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && v < s.minimum) errs.push(`${p}: minimum`);
    if (typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum)
      errs.push(`${p}: exclusiveMinimum`);
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems) errs.push(`${p}: minItems`);
    if (typeof s.maxItems === 'number' && v.length > s.maxItems) errs.push(`${p}: maxItems`);
    if (Array.isArray(s.items))
      v.forEach((x, i) => errs.push(...jsonValidate((s.items as JsonSchema[])[i] ?? {}, x, `${p}[${i}]`)));
    else if (s.items) v.forEach((x, i) => errs.push(...jsonValidate(s.items as JsonSchema, x, `${p}[${i}]`)));
  }
  if (type === 'object') {
    const o = v as Record<string, unknown>;
    const props = (s.properties ?? {}) as Record<string, JsonSchema>;
    for (const r of (s.required ?? []) as string[]) if (!(r in o)) errs.push(`${p}.${r}: required`);
    for (const [k, x] of Object.entries(o)) {
      if (props[k]) errs.push(...jsonValidate(props[k], x, `${p}.${k}`));
      else if (s.additionalProperties === false) errs.push(`${p}.${k}: additional`);
      else if (typeof s.additionalProperties === 'object') {
        errs.push(...jsonValidate(s.additionalProperties as JsonSchema, x, `${p}.${k}`));
      }
    }
  }
  return errs;
}

function issuesOf(doc: unknown) {
  try {
    assertValidScene(doc);
  } catch (e) {
    expect(e).toBeInstanceOf(SceneValidationError);
    return (e as SceneValidationError).issues;
  }
  throw new Error('expected a validation error');
}

describe('scene schema', () => {
  it('finds the 12 SAP Warp example scenes', () => {
    expect(sceneFiles()).toHaveLength(12);
  });

  it.each(sceneFiles())('%s validates (strict, no warnings)', (file) => {
    const r = validateScene(parseSceneText(readScene(file), file), { strict: true });
    expect(r.issues).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([]);
  });

  it.each(sceneFiles())('%s validates against the generated JSON Schema', (file) => {
    const doc = parseSceneText(readScene(file), file);
    expect(jsonValidate(sceneJsonSchema(), doc)).toEqual([]);
  });

  it('generates a JSON Schema covering every section', () => {
    const js = sceneJsonSchema() as Record<string, any>;
    expect(js.$schema).toMatch(/draft-07/);
    expect(js.additionalProperties).toBe(false);
    expect(js.required).toEqual(['schema_version']);
    for (const k of [
      'simulation',
      'builder',
      'ground',
      'assets',
      'bodies',
      'joints',
      'articulations',
      'initial_joint_q',
      'post_build',
      'replicate',
    ]) {
      expect(js.properties[k], k).toBeDefined();
    }
    const solver = js.properties.simulation.properties.solver;
    expect(Object.keys(solver.properties)).toEqual([
      ...SOLVER_OPTION_KEYS,
      ...Object.keys(INERT_SOLVER_OPTIONS),
    ]);
    expect(solver.properties.contact_preset_variant.enum).toEqual(
      expect.arrayContaining(['approx32', 'approx64', 'drake', 'approx_32']),
    );
    expect(solver.properties.use_f64_boundary_pose.type).toBe('boolean');
    const ops = js.properties.post_build.items.oneOf.map((o: any) => o.properties.op.const);
    expect(ops).toEqual(POST_BUILD_OPS);
    expect(ops).toHaveLength(10);
    const shapes = js.properties.bodies.items.properties.shapes.items.oneOf;
    expect(shapes.map((o: any) => o.properties.type.const)).toEqual([
      'box',
      'sphere',
      'capsule',
      'cylinder',
      'cone',
      'ellipsoid',
      'mesh',
      'heightfield',
    ]);
    // numeric fields accept numbers or expressions
    expect(jsonValidate(js.properties.builder.properties.rigid_gap, 'pi / 100')).toEqual([]);
    expect(jsonValidate(js.properties.builder.properties.rigid_gap, -1)).not.toEqual([]);
    expect(jsonValidate(js, { schema_version: 1, bogus: 1 })).toEqual(['.bogus: additional']);
  });

  it('evaluates expressions and normalizes solver aliases in the parsed output', () => {
    const doc = chainScene(2);
    doc.simulation = { dt: '1 / 200', solver: { contact_preset_variant: 'approx-64', armijo_c: '1 / 1000' } };
    const { data } = assertValidScene(doc);
    expect(data.simulation?.dt).toBe(0.005);
    expect(data.simulation?.solver).toEqual({ contact_preset_variant: 'approx64', armijo_c: 0.001 });
  });

  it('names the key path of an unknown key (strict), and lists the allowed keys', () => {
    const doc = chainScene(2) as any;
    doc.bodies[0].shapes.push({ type: 'sphere', radius: 0.1, cfg: { densty: 3 } });
    const [issue] = issuesOf(doc);
    expect(issue.path).toBe('bodies[0].shapes[1].cfg.densty');
    expect(issue.code).toBe('unknown_key');
    expect(issue.message).toMatch(/unknown key 'densty'; allowed keys: density, /);
  });

  it('lenient mode turns unknown keys into warnings and drops them', () => {
    const doc = chainScene(2) as any;
    doc.bodies[0].shapes[0].cfg = { densty: 3, mu: 0.2 };
    doc.frobnicate = true;
    doc.simulation.solver = { max_iterations: 10, bogus_option: 1 };
    const r = validateScene(doc, { strict: false });
    expect(r.ok).toBe(true);
    expect(r.warnings).toHaveLength(3);
    expect(r.warnings.join('\n')).toMatch(/bodies\[0\]\.shapes\[0\]\.cfg\.densty: unknown key/);
    expect(r.warnings.join('\n')).toMatch(/simulation\.solver\.bogus_option: unknown key/);
    expect(r.data?.bodies?.[0].shapes?.[0].cfg).toEqual({ mu: 0.2 });
    expect(r.data?.simulation?.solver).toEqual({ max_iterations: 10 });
    expect(doc.frobnicate).toBe(true); // the input is not modified
  });

  it('names the key path of a bad enum value and lists the allowed values', () => {
    const doc = chainScene(2) as any;
    doc.joints[1].type = 'hinge';
    const [issue] = issuesOf(doc);
    expect(issue.path).toBe('joints[1].type');
    expect(issue.message).toBe("invalid value 'hinge'; allowed: fixed, free, revolute, prismatic, ball");
    doc.joints[1].type = 'revolute';
    doc.bodies[1].shapes[0].type = 'torus';
    const [shape] = issuesOf(doc);
    expect(shape.path).toBe('bodies[1].shapes[0].type');
    expect(shape.message).toMatch(
      /allowed: box, sphere, capsule, cylinder, cone, ellipsoid, mesh, heightfield/,
    );
    delete doc.bodies[1].shapes[0].type;
    expect(issuesOf(doc)[0].message).toMatch(/required key is missing; allowed: box/);
  });

  it('names the key path of a bad or unknown solver option', () => {
    const doc = chainScene(2) as any;
    doc.simulation.solver = { line_search_variant: 'golden' };
    const [bad] = issuesOf(doc);
    expect(bad.path).toBe('simulation.solver.line_search_variant');
    expect(bad.message).toMatch(/must be one of monotone_decay, armijo_decay, exact_root; got 'golden'/);
    doc.simulation.solver = { rho: 1.5 };
    expect(issuesOf(doc)[0].path).toBe('simulation.solver.rho');
    doc.simulation.solver = { line_serch_variant: 'exact_root' };
    const [unknown] = issuesOf(doc);
    expect(unknown.path).toBe('simulation.solver.line_serch_variant');
    expect(unknown.code).toBe('unknown_key');
    expect(unknown.message).toMatch(/allowed keys: contact_preset_variant, .*line_search_variant/);
  });

  it('reports post_build problems with their paths', () => {
    const doc = chainScene(2) as any;
    doc.post_build = [{ op: 'set_array', array: 'joint_q', value: 1, values: [1] }];
    expect(issuesOf(doc)[0]).toMatchObject({
      path: 'post_build[0]',
      message: 'exactly one of value, values, from_array is required; got value, values',
    });
    doc.post_build = [{ op: 'set_array', array: 'joint_qq', value: 1 }];
    expect(issuesOf(doc)[0].path).toBe('post_build[0].array');
    doc.post_build = [{ op: 'set_joint_targets', range: 'head6', mode: 'position' }];
    expect(issuesOf(doc)[0]).toMatchObject({
      path: 'post_build[0].range',
      message: expect.stringMatching(/head:N/),
    });
    doc.post_build = [{ op: 'set_joint_targets', range: 'all', match: 'x' }];
    expect(issuesOf(doc)[0].message).toMatch(/give one joint selector/);
    doc.post_build = [{ op: 'teleport' }];
    expect(issuesOf(doc)[0]).toMatchObject({
      path: 'post_build[0].op',
      message: expect.stringMatching(/allowed: add_shape/),
    });
    doc.post_build = [{ op: 'set_attr', name: 'up_axis', value: 2 }];
    expect(issuesOf(doc)[0]).toMatchObject({
      path: 'post_build[0].name',
      message: "invalid value 'up_axis'; allowed: gravity, rigid_gap, default_body_armature",
    });
  });

  it('reports bad numbers, expressions, vectors and missing keys', () => {
    const doc = chainScene(2) as any;
    doc.joints[1].limit_lower = 'pi *';
    expect(issuesOf(doc)[0]).toMatchObject({ path: 'joints[1].limit_lower', code: 'expression' });
    doc.joints[1].limit_lower = -1;
    doc.bodies[0].mass = -2;
    expect(issuesOf(doc)[0].path).toBe('bodies[0].mass');
    delete doc.bodies[0].mass;
    doc.bodies[0].transform.p = [1, 2];
    expect(issuesOf(doc)[0].path).toBe('bodies[0].transform.p');
    doc.bodies[0].transform = { p: [0, 0, 1], q: { axis_angle: { axis: 'w', angle: 1 } } };
    expect(issuesOf(doc)[0].path).toBe('bodies[0].transform.q.axis_angle.axis');
    doc.bodies[0].transform = 'identity';
    delete doc.bodies[0].shapes[0].hz;
    expect(issuesOf(doc)[0]).toMatchObject({
      path: 'bodies[0].shapes[0].hz',
      message: 'required key is missing',
    });
    doc.bodies[0].shapes[0].hz = 0.1;
    doc.schema_version = 2;
    expect(issuesOf(doc)[0]).toMatchObject({ path: 'schema_version', message: 'expected 1; got 2' });
    expect(issuesOf(null)[0].message).toBe('expected object; got null');
  });

  it('accepts every documented form of axes, transforms, ground and asset sources', () => {
    const doc = chainScene(3) as any;
    doc.joints[1].axis = [0, 1, 0];
    doc.joints[2].axis = 2;
    doc.joints[2].parent_xform = { q: [0, 0, 0, 1] };
    doc.bodies[1].transform = { p: [0, 0, 1], q: { axis_angle: { axis: '-z', angle: 'pi / 3' } } };
    doc.ground = { enabled: true, label: 'floor', cfg: { shape_mu: 0.3, relaxation_time: 0.02 } };
    doc.assets = [
      { id: 'a', type: 'urdf', source: 'robots/a.urdf' },
      { id: 'b', type: 'urdf', source: '<robot name="b"><link name="l"/></robot>' },
      { id: 'c', type: 'mjcf', source: { path: 'c.xml' }, floating: true },
      {
        id: 'd',
        type: 'usd',
        source: { git: { repo: 'https://x/y.git', rev: 'abc', sparse: ['p'], path: 'p/d.usda' } },
      },
    ];
    expect(validateScene(doc).issues).toEqual([]);
    doc.assets[3].source.git.branch = 'main';
    expect(issuesOf(doc)[0].path).toBe('assets[3].source.git.branch');
  });
});
