/**
 * The scene schema (SAP Warp `schema_version: 1`, SPEC §5.1 and `reference/sap_warp/docs/concepts_loader.rst`):
 * ONE zod schema for every section. Objects are strict (unknown keys are reported with their key path;
 * the loader turns them into errors in strict mode and warnings in lenient mode). Numeric fields take
 * numbers or expressions (`pi * 0.5`), evaluated while parsing, so the parsed output holds numbers.
 * `simulation.solver` is validated and normalized by the solver-options module (SPEC §3.6).
 *
 * {@link sceneJsonSchema} is zod's own JSON Schema (draft-07) of this schema's input, for editors.
 */
import { z } from '../zod';
import {
  INERT_SOLVER_OPTIONS,
  MAX_RIGID_CONTACT,
  OptionsError,
  SOLVER_OPTION_KEYS,
  allowedValues,
  normalizeSolverOptions,
} from '../../sap/options';
import { toJsonSchema, withJsonSchema, type JsonSchema } from '../json_schema';
import { ExprError } from './errors';
import { evalExpr } from './expr';

export const SCHEMA_VERSION = 1;

export type { JsonSchema };

/** a strict object whose unknown-key message lists the allowed keys */
function obj<T extends z.ZodRawShape>(shape: T) {
  const allowed = `allowed keys: ${Object.keys(shape).join(', ')}`;
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? allowed : undefined),
  });
}

/** a discriminated union whose no-match message lists the discriminator's values */
function tagged<const K extends string, const O extends readonly [z.ZodObject, ...z.ZodObject[]]>(
  key: K,
  options: O,
) {
  const allowed = `allowed: ${options.map((o) => String((o.shape as Record<K, z.ZodLiteral>)[key].value)).join(', ')}`;
  return z.discriminatedUnion(key, options as unknown as [z.ZodObject, ...z.ZodObject[]], {
    error: (issue) => (issue.code === 'invalid_union' ? allowed : undefined),
  }) as unknown as z.ZodDiscriminatedUnion<[...O]>;
}

// ---------------------------------------------------------------------------------------------
// scalars

const exprString = z.string().transform((s, ctx) => {
  try {
    return evalExpr(s);
  } catch (e) {
    ctx.addIssue({
      code: 'custom',
      message: e instanceof ExprError ? e.reason : String(e),
      params: { scene_code: 'expression' },
    });
    return z.NEVER;
  }
});

const NUM_JSON: JsonSchema = {
  anyOf: [{ type: 'number' }, { type: 'string', description: 'expression: numbers, pi, inf, + - * /, ( )' }],
};

/** ±∞ (YAML `.inf`, the expression `inf`): zod 4's z.number() takes finite numbers only */
const plusInfinity = z.literal(Infinity);
const minusInfinity = z.literal(-Infinity);

/** a number (±∞ included) or a numeric expression (`pi * 0.5`) */
export const num = withJsonSchema(z.union([z.number(), plusInfinity, minusInfinity, exprString]), NUM_JSON);

function numWith(checks: z.core.$ZodCheck<number>[], json: JsonSchema = {}) {
  return withJsonSchema(num.check(...checks), {
    anyOf: [{ type: 'number', ...json }, (NUM_JSON.anyOf as JsonSchema[])[1]],
  });
}
/** ≥ 0 */
export const nonneg = numWith([z.gte(0)], { minimum: 0 });
/** > 0 */
export const positive = numWith([z.gt(0)], { exclusiveMinimum: 0 });
/** an integer (numbers or expressions) */
export const int = numWith([z.int()], { type: 'integer' });
const intMin = (min: number) => numWith([z.int(), z.gte(min)], { type: 'integer', minimum: min });

export const vec3 = z.tuple([num, num, num]);
export const quat4 = z.tuple([num, num, num, num]);
const color = z
  .union([z.tuple([num, num, num]), z.tuple([num, num, num, num])])
  .describe('linear RGB(A) in [0, 1]');
const id = z.string().min(1);

/** an axis: [x, y, z], a token x / y / z with optional sign (+x, -z), or an integer 0 / 1 / 2 */
export const axisSpec = z.union([
  vec3,
  z.string().regex(/^\s*[+-]?[xyzXYZ]\s*$/, "axis token must be 'x', 'y' or 'z' with an optional sign"),
  z.number().int().min(0).max(2),
]);

/** quaternion: identity | [x, y, z, w] | {axis_angle: {axis, angle}} */
export const quatSpec = z.union([
  z.literal('identity'),
  quat4,
  obj({ axis_angle: obj({ axis: axisSpec, angle: num }) }),
]);

/** a transform: identity | {p, q} */
export const transformSpec = z
  .union([z.literal('identity'), obj({ p: vec3.optional(), q: quatSpec.optional() })])
  .describe("pose: 'identity' or {p: [x, y, z], q: identity | [x, y, z, w] | {axis_angle: {axis, angle}}}");

// ---------------------------------------------------------------------------------------------
// shape configuration and its aliases

/** alias → canonical shape-config field (loader doc "Shape Defaults") */
export const SHAPE_CFG_ALIASES: Readonly<Record<string, string>> = {
  contact_margin: 'margin',
  shape_margin: 'margin',
  shape_gap: 'gap',
  shape_mu: 'mu',
  shape_ke: 'ke',
  shape_tau: 'tau',
  relaxation_time: 'tau',
};

export const shapeCfgFields = {
  density: nonneg.describe('[kg/m³] used to compute body mass and inertia'),
  ke: nonneg.describe('contact stiffness [N/m]'),
  shape_ke: nonneg,
  tau: nonneg.describe('dissipation time scale [s]'),
  shape_tau: nonneg,
  relaxation_time: nonneg,
  mu: nonneg.describe('Coulomb friction'),
  shape_mu: nonneg,
  margin: num.describe('surface offset entering the signed gap [m]'),
  contact_margin: num,
  shape_margin: num,
  gap: nonneg.describe('contact candidate band [m]; default builder.rigid_gap'),
  shape_gap: nonneg,
  collision_group: int.describe('0 none, +n same group only, -n all but itself'),
  has_shape_collision: z.boolean(),
  has_particle_collision: z.boolean(),
  is_hydroelastic: z.boolean(),
  is_visible: z.boolean(),
  is_site: z.boolean(),
  restitution: nonneg,
  mu_torsional: nonneg,
  mu_rolling: nonneg,
  kh: nonneg,
};
const optionalShape = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof T]: z.ZodOptional<T[K]>;
  };
export const shapeCfgSpec = obj(optionalShape(shapeCfgFields));
export type ShapeCfgInput = z.output<typeof shapeCfgSpec>;

// ---------------------------------------------------------------------------------------------
// shapes

const shapeCommon = {
  label: z.string().optional(),
  transform: transformSpec.optional(),
  xform: transformSpec.optional(),
  color: color.optional(),
  cfg: shapeCfgSpec.optional(),
  ...optionalShape(shapeCfgFields),
};
export const SHAPE_SPEC_TYPES = [
  'box',
  'sphere',
  'capsule',
  'cylinder',
  'cone',
  'ellipsoid',
  'mesh',
  'heightfield',
] as const;
export const shapeSpec = tagged('type', [
  obj({ type: z.literal('box'), hx: positive, hy: positive, hz: positive, ...shapeCommon }),
  obj({ type: z.literal('sphere'), radius: positive, ...shapeCommon }),
  obj({ type: z.literal('capsule'), radius: positive, half_height: nonneg, ...shapeCommon }),
  obj({ type: z.literal('cylinder'), radius: positive, half_height: positive, ...shapeCommon }),
  obj({ type: z.literal('cone'), radius: positive, half_height: positive, ...shapeCommon }),
  obj({ type: z.literal('ellipsoid'), a: positive, b: positive, c: positive, ...shapeCommon }),
  obj({
    type: z.literal('mesh'),
    source: z.string().optional().describe('mesh file (STL / OBJ)'),
    vertices: z.array(vec3).optional(),
    indices: z.array(intMin(0)).optional().describe('flat triangle vertex indices'),
    scale: z.union([num, vec3]).optional(),
    is_convex: z.boolean().optional(),
    ...shapeCommon,
  }),
  obj({
    type: z.literal('heightfield'),
    nrow: intMin(2).describe('samples along y (rows)'),
    ncol: intMin(2).describe('samples along x (columns)'),
    size: z
      .tuple([nonneg, nonneg, nonneg, nonneg])
      .describe('[half x, half y, elevation scale z, base depth] [m] (MuJoCo hfield size)'),
    data: z.array(num).describe('nrow × ncol elevations in [0, 1], row-major, scaled by size[2]'),
    ...shapeCommon,
  }),
]);
export type ShapeSpec = z.output<typeof shapeSpec>;

// ---------------------------------------------------------------------------------------------
// bodies, joints, articulations

export const bodySpec = obj({
  id: id.describe('stable identifier used by joints and post-build references'),
  label: z.string().optional().describe('runtime label (default: id)'),
  transform: transformSpec.optional(),
  xform: transformSpec.optional(),
  mass: nonneg.optional().describe('[kg]; rescales the shape-derived mass distribution'),
  inertia: z
    .union([vec3, z.array(num).length(9)])
    .optional()
    .describe('principal moments (3) or a row-major 3×3 matrix about the COM [kg·m²]'),
  com: vec3.optional(),
  armature: nonneg
    .optional()
    .describe('body-space rotational armature (default builder.default_body_armature)'),
  gravcomp: num
    .optional()
    .describe('gravity compensation: a force −gravcomp·m·g at the COM (1 floats; default 0) [1]'),
  shape: shapeCfgSpec.optional(),
  physics: shapeCfgSpec.optional(),
  material: shapeCfgSpec.optional(),
  ...optionalShape(shapeCfgFields),
  shapes: z.array(shapeSpec).optional(),
});
export type BodySpec = z.output<typeof bodySpec>;

export const JOINT_SPEC_TYPES = ['fixed', 'free', 'revolute', 'prismatic', 'ball'] as const;

export const jointDofFields = {
  target_pos: num,
  target_vel: num,
  target_ke: nonneg,
  target_kd: nonneg,
  limit_lower: num,
  limit_upper: num,
  limit_ke: nonneg,
  limit_kd: nonneg,
  armature: nonneg,
  effort_limit: nonneg,
  velocity_limit: nonneg,
  friction: nonneg,
  damping: nonneg,
  actuator_mode: int.describe('integer actuator mode stored per DOF'),
};

export const jointDefaultsSpec = obj({ axis: axisSpec.optional(), ...optionalShape(jointDofFields) });

export const jointSpec = obj({
  id: id,
  label: z.string().optional().describe('runtime label (default: id)'),
  type: z.enum(JOINT_SPEC_TYPES),
  parent: z.string().optional().describe("'world' (default) or a body id"),
  child: id.describe('body id'),
  parent_xform: transformSpec.optional(),
  child_xform: transformSpec.optional(),
  axis: axisSpec.optional(),
  collision_filter_parent: z.boolean().optional(),
  cone_mode: z
    .enum(['rotation', 'swing'])
    .optional()
    .describe("ball joints: the cone limit's kind, the rotation angle (default) or the swing of `axis`"),
  cone_limit: z
    .union([num, z.array(num).min(1).max(2)])
    .optional()
    .describe(
      "ball joints: the cone's angle [rad] ('rotation'), or its angles toward the axis after `axis` and the one after that ('swing')",
    ),
  ...optionalShape(jointDofFields),
});
export type JointSpec = z.output<typeof jointSpec>;

export const articulationSpec = obj({
  id: id,
  label: z.string().optional(),
  joints: z.array(id).min(1),
});

const hasAny = (o: Record<string, unknown>, keys: readonly string[]) =>
  keys.filter((k) => o[k] !== undefined);

export const initialJointQSpec = obj({
  joint: z.string().optional(),
  joint_label: z.string().optional(),
  offset: intMin(0).optional(),
  index: int.optional(),
  value: num,
}).superRefine((o, ctx) => {
  const given = hasAny(o, ['joint', 'joint_label', 'index']);
  if (given.length !== 1) {
    ctx.addIssue({
      code: 'custom',
      message: `exactly one of joint, joint_label, index is required${given.length ? `; got ${given.join(', ')}` : ''}`,
    });
  }
  if (o.index !== undefined && o.offset !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['offset'],
      message: 'offset applies to joint / joint_label',
    });
  }
});

// ---------------------------------------------------------------------------------------------
// post-build operations

/** arrays editable by set_array / copy_array (loader doc "Post-Build Operations") */
export const ARRAY_NAMES = [
  'shape_margin',
  'shape_gap',
  'shape_material_ke',
  'shape_material_tau',
  'shape_material_mu',
  'shape_material_restitution',
  'shape_material_mu_torsional',
  'shape_material_mu_rolling',
  'shape_material_kh',
  'shape_collision_group',
  'shape_flags',
  'joint_q',
  'joint_qd',
  'joint_target_pos',
  'joint_target_vel',
  'joint_target_ke',
  'joint_target_kd',
  'joint_target_mode',
  'joint_armature',
] as const;
export type ArrayName = (typeof ARRAY_NAMES)[number];
const arrayName = z.enum(ARRAY_NAMES);

/** all | head:N | tail:N | from:N | [start, end] (half-open, null end = the end) */
export const rangeSpec = z
  .union([
    z
      .string()
      .regex(
        /^\s*(all|(head|tail|from)\s*:\s*-?\d+)\s*$/,
        "range must be 'all', 'head:N', 'tail:N', 'from:N' or [start, end]",
      ),
    z.tuple([int.nullable(), int.nullable()]),
  ])
  .describe("'all' | 'head:N' | 'tail:N' | 'from:N' | [start, end] (end null = to the end)");

/** joint target modes (Newton's JointTargetMode order) */
export const TARGET_MODES = ['none', 'position', 'velocity', 'position_velocity', 'effort'] as const;
export const targetModeSpec = z.union([z.enum(TARGET_MODES), z.number().int().min(0).max(4)]);

const arraySelector = { index: int.optional(), range: rangeSpec.optional() };
const jointSelector = {
  ...arraySelector,
  joint: z.string().optional(),
  joint_label: z.string().optional(),
  joints: z.array(z.string()).optional(),
  joint_labels: z.array(z.string()).optional(),
  label_prefix: z.string().optional(),
  match: z.string().optional(),
};
export const JOINT_SELECTOR_KEYS = Object.keys(jointSelector);

export const SET_ATTR_NAMES = ['gravity', 'rigid_gap', 'default_body_armature'] as const;
export const MESH_APPROXIMATIONS = [
  'bounding_box',
  'bounding_sphere',
  'convex_hull',
  'coacd',
  'vhacd',
] as const;

export const postBuildOpSpec = tagged('op', [
  obj({
    op: z.literal('add_shape'),
    body: z.string().optional().describe("body id or label, or 'world' (default)"),
    shape: shapeSpec,
  }),
  obj({
    op: z.literal('set_array'),
    array: arrayName,
    ...arraySelector,
    value: num.optional(),
    values: z.array(num).optional(),
    from_array: arrayName.optional(),
  }),
  obj({
    op: z.literal('copy_array'),
    src: arrayName,
    dst: arrayName,
    ...arraySelector,
    src_index: int.optional(),
    src_range: rangeSpec.optional(),
  }),
  obj({ op: z.literal('scale_sphere_shapes'), factor: positive }),
  obj({ op: z.literal('approximate_meshes'), method: z.enum(MESH_APPROXIMATIONS).optional() }),
  obj({ op: z.literal('set_attr'), name: z.enum(SET_ATTR_NAMES), value: z.union([num, vec3]) }),
  obj({
    op: z.literal('set_joint_targets'),
    ...jointSelector,
    mode: targetModeSpec.optional(),
    ke: nonneg.optional(),
    kd: nonneg.optional(),
  }),
  obj({
    op: z.literal('set_joint_q'),
    joint: z.string().optional(),
    joint_label: z.string().optional(),
    offset: intMin(0).optional(),
    index: int.optional(),
    value: num,
  }),
  obj({ op: z.literal('copy_joint_q_to_joint_targets'), ...jointSelector }),
  obj({ op: z.literal('set_joint_armature'), ...jointSelector, value: nonneg }),
]).superRefine((o, ctx) => {
  const r = o as Record<string, unknown>;
  const issue = (message: string) => ctx.addIssue({ code: 'custom', message });
  if (r.index !== undefined && r.range !== undefined) issue('give index or range, not both');
  if (o.op === 'set_array') {
    const given = hasAny(r, ['value', 'values', 'from_array']);
    if (given.length !== 1)
      issue(
        `exactly one of value, values, from_array is required${given.length ? `; got ${given.join(', ')}` : ''}`,
      );
  }
  if (o.op === 'copy_array' && o.src_index !== undefined && o.src_range !== undefined) {
    issue('give src_index or src_range, not both');
  }
  if (o.op === 'set_joint_q') {
    const given = hasAny(r, ['joint', 'joint_label', 'index']);
    if (given.length !== 1) issue('exactly one of joint, joint_label, index is required');
    if (o.index !== undefined && o.offset !== undefined) issue('offset applies to joint / joint_label');
  }
  if (
    o.op === 'set_joint_targets' ||
    o.op === 'copy_joint_q_to_joint_targets' ||
    o.op === 'set_joint_armature'
  ) {
    const groups = [
      ['index', 'range'],
      ['joint', 'joint_label', 'joints', 'joint_labels'],
      ['label_prefix'],
      ['match'],
    ].filter((g) => hasAny(r, g).length > 0);
    const sel = hasAny(r, JOINT_SELECTOR_KEYS);
    if (groups.length > 1 || hasAny(r, ['joint', 'joint_label', 'joints', 'joint_labels']).length > 1) {
      issue(`give one joint selector; got ${sel.join(', ')}`);
    }
  }
});
export type PostBuildOp = z.output<typeof postBuildOpSpec>;
export const POST_BUILD_OPS = postBuildOpSpec.options.map((o) => o.shape.op.value);

// ---------------------------------------------------------------------------------------------
// solver options (validated by the solver-options module)

const SOLVER_ALIAS_SPELLINGS = [
  'approx_32',
  'approx-32',
  'approx_64',
  'approx-64',
  'f32',
  'f64',
  'float32',
  'float64',
];

function solverOptionJson(key: string): JsonSchema {
  const allowed = allowedValues(key as never);
  if (allowed) {
    const aliases = SOLVER_ALIAS_SPELLINGS.filter((a) => {
      try {
        normalizeSolverOptions({ [key]: a });
        return true;
      } catch {
        return false;
      }
    });
    return { type: 'string', enum: [...allowed, ...aliases] };
  }
  try {
    normalizeSolverOptions({ [key]: true });
    return { type: 'boolean' };
  } catch {
    return { anyOf: [{ type: 'number' }, { type: 'string' }] };
  }
}

/** `simulation.solver`: SPEC §3.6 vocabulary; output is the normalized (not expanded) options */
export const solverSpec = withJsonSchema(
  // a plain-object check rather than z.record, which drops a '__proto__' key silently: every key
  // given must be reported
  z
    .custom<Record<string, unknown>>(
      (x) => typeof x === 'object' && x !== null && !Array.isArray(x),
      'expected object',
    )
    .transform((input, ctx) => {
      const out: Record<string, unknown> = {};
      for (const [key, raw] of Object.entries(input)) {
        const canon = key.replace(/-/g, '_'); // SAP Warp's hyphenated spellings
        if (!(SOLVER_OPTION_KEYS as readonly string[]).includes(canon) && !(canon in INERT_SOLVER_OPTIONS)) {
          ctx.addIssue({
            code: 'unrecognized_keys',
            keys: [key],
            input,
            message: `allowed keys: ${SOLVER_OPTION_KEYS.join(', ')}`,
          });
          continue;
        }
        try {
          Object.assign(out, normalizeSolverOptions({ [key]: raw }));
        } catch (e) {
          // numeric options may be written as expressions
          let fixed = false;
          if (typeof raw === 'string' && !allowedValues(key as never)) {
            try {
              Object.assign(out, normalizeSolverOptions({ [key]: evalExpr(raw) }));
              fixed = true;
            } catch {
              /* report the original error */
            }
          }
          if (!fixed) {
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: e instanceof OptionsError ? e.message : String(e),
              params: { scene_code: 'solver_option' },
            });
          }
        }
      }
      return out;
    }),
  {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...Object.fromEntries(SOLVER_OPTION_KEYS.map((k) => [k, solverOptionJson(k)])),
      ...Object.fromEntries(
        Object.entries(INERT_SOLVER_OPTIONS).map(([k, v]) => [
          k,
          {
            type: v.type === 'boolean' ? 'boolean' : v.type === 'int' ? 'integer' : 'number',
            description: `accepted, no effect here: ${v.reason}`,
          },
        ]),
      ),
    },
  },
);

// ---------------------------------------------------------------------------------------------
// sections

export const simulationSpec = obj({
  dt: positive.optional().describe('time step [s]'),
  num_worlds: intMin(1).optional(),
  max_rigid_contact: numWith([z.int(), z.gte(1), z.lte(MAX_RIGID_CONTACT)], {
    type: 'integer',
    minimum: 1,
    maximum: MAX_RIGID_CONTACT,
  })
    .optional()
    .describe('per-world contact capacity (SAP Warp refuses 0)'),
  solver: solverSpec.optional(),
});

export const builderSpec = obj({
  gravity: z.union([num, vec3]).optional().describe('z component (scalar) or a 3-vector [m/s²]'),
  rigid_gap: nonneg.optional(),
  default_body_armature: nonneg.optional(),
  register_mujoco_custom_attributes: z.boolean().optional().describe('accepted for compatibility; no effect'),
  defaults: obj({ joint: jointDefaultsSpec.optional(), shape: shapeCfgSpec.optional() }).optional(),
});

export const groundSpec = z.union([
  z.boolean(),
  obj({ enabled: z.boolean().optional(), label: z.string().optional(), cfg: shapeCfgSpec.optional() }),
]);

export const gitSourceSpec = obj({
  repo: z.string().min(1),
  rev: z.string().optional(),
  sparse: z.array(z.string()).optional(),
  path: z.string().min(1),
});

/** a path string (or inline XML starting with '<'), {path}, {xml} or {git: {repo, rev, sparse, path}} */
export const assetSourceSpec = z.union([
  z.string().min(1),
  obj({ path: z.string().min(1) }),
  obj({ xml: z.string().min(1) }),
  obj({ git: gitSourceSpec }),
]);

export const ASSET_TYPES = ['usd', 'urdf', 'mjcf'] as const;
export const assetSpec = obj({
  id: id,
  type: z.enum(ASSET_TYPES),
  source: assetSourceSpec,
  xform: transformSpec.optional(),
  cfg: shapeCfgSpec.optional(),
  shape: shapeCfgSpec.optional(),
  physics: shapeCfgSpec.optional(),
  enable_self_collisions: z.boolean().optional(),
  hide_collision_shapes: z.boolean().optional(),
  force_show_colliders: z.boolean().optional(),
  skip_mesh_approximation: z.boolean().optional(),
  ignore_paths: z.array(z.string()).optional(),
  floating: z.boolean().optional(),
  load_visual_shapes: z.boolean().optional(),
  parse_visuals_as_colliders: z.boolean().optional(),
  collapse_fixed_joints: z.boolean().optional(),
  ignore_inertial_definitions: z.boolean().optional(),
});
export type AssetSpec = z.output<typeof assetSpec>;

export const replicateSpec = obj({
  num_worlds: intMin(1).optional(),
  spacing: vec3
    .optional()
    .describe('world offset spacing [m]; worlds form a centered grid over non-zero axes'),
});

export const controlSpec = obj({
  source: z.string().min(1).describe('control sequence file, relative to the scene file'),
  loop: z.boolean().optional(),
});

/** the whole scene document */
export const sceneSchema = obj({
  schema_version: z.literal(SCHEMA_VERSION),
  name: z.string().optional(),
  description: z.string().optional(),
  simulation: simulationSpec.optional(),
  builder: builderSpec.optional(),
  ground: groundSpec.optional(),
  assets: z.array(assetSpec).optional(),
  bodies: z.array(bodySpec).optional(),
  joints: z.array(jointSpec).optional(),
  articulations: z.array(articulationSpec).optional(),
  initial_joint_q: z.array(initialJointQSpec).optional(),
  post_build: z.array(postBuildOpSpec).optional(),
  replicate: replicateSpec.optional(),
  control: controlSpec.optional(),
});
export type SceneDoc = z.output<typeof sceneSchema>;

let cachedJsonSchema: JsonSchema | undefined;

/** the JSON Schema (draft-07) of scene files: zod's own, of what {@link sceneSchema} accepts */
export function sceneJsonSchema(): JsonSchema {
  cachedJsonSchema ??= {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://sap-studio/scene.schema.json',
    title: 'SAP scene (schema_version 1)',
    ...toJsonSchema(sceneSchema, { io: 'input', target: 'draft-7' }),
  };
  return structuredClone(cachedJsonSchema);
}
