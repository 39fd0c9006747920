/**
 * Scene loader (SPEC §5.1; `reference/sap_warp/docs/concepts_loader.rst`). Load order:
 *   1. num_worlds / replicate spacing   2. builder defaults   3. assets   4. inline bodies and shapes
 *   5. joints and articulations   6. initial_joint_q   7. post_build   8. replicate   9. ground
 * Every failure is a typed {@link SceneError} with the key path (and line/column when the document came
 * from {@link parseSceneText}).
 */
import { f64, quatFromAxisAngle, transformMul } from '../../math';
import {
  JOINT_QD_SIZE,
  JointType,
  ModelBuilder,
  ModelError,
  ShapeType,
  type JointDofConfig,
  type SapModel,
  type ShapeConfig,
  type ShapeDesc,
  type ShapeTypeName,
} from '../../model';
import type { AssetResolver } from '../assets/resolver';
import { rethrowOutside } from '../assets/confined';
import { ImportError } from '../assets/errors';
import { readAsset, type ImportOptions } from '../assets/importer';
import { importAsset, timeStepOverrideWarning } from '../import';
import { convexHull, orientedBoundingBox, parseMeshBytes, scaleMesh, type TriMesh } from '../mesh';
import { Authoring, LoadContext, sceneError, resolveSelection, TargetMode } from './authoring';
import { SceneError, formatKeyPath, type KeySegment } from './errors';
import {
  SHAPE_CFG_ALIASES,
  TARGET_MODES,
  shapeCfgFields,
  type ArrayName,
  type AssetSpec,
  type PostBuildOp,
  type SceneDoc,
  type ShapeSpec,
} from './schema';
import { attachLocation, parseSceneText } from './source';
import {
  besideSceneRoots,
  firstExisting,
  gitCandidates,
  gitNotFound,
  isInside,
  plainCandidates,
  plainNotFound,
  type AssetRoot,
} from './asset_roots';
import { LIMITS, builderSizeProblem, limitMessage } from '../limits';
import { checkBuiltModel, timeStepProblem } from '../model_check';
import { inertOptionWarnings } from '../../sap/options';
import { assertValidScene } from './validate';
import {
  applyControlInitialState,
  buildControlSequence,
  ControlSequenceError,
  parseControlFile,
  type ControlFileDoc,
} from './control';
import type { ControlSequence } from '../../state/control_sequence';

export { parseSceneText } from './source';

export interface LoadSceneOptions {
  /**
   * recognized features that the engine does not build or only approximates are errors
   * (`SceneUnsupportedError`) when true; by default (false) the scene loads and they are listed in
   * `unsupported`. Unknown keys are errors with their key path either way.
   */
  strict?: boolean;
  /** overrides simulation.num_worlds / replicate.num_worlds */
  num_worlds?: number;
  /** overrides simulation.dt */
  dt?: number;
}

/** options of {@link loadSceneAsync}: the sync options plus how to find asset files */
export interface LoadSceneAsyncOptions extends LoadSceneOptions {
  /** reads asset files (URDF / MJCF / USD and what they reference, inline mesh sources) */
  resolver: AssetResolver;
  /**
   * the first folder searched for assets (see `asset_roots.ts`): `git: {repo: …/NAME.git, path: P}`
   * reads `<asset_root>/NAME/P` (or `<asset_root>/NAME/<rev>/P` when that folder exists), and a plain
   * `path: P` not found next to the scene is also tried as `<asset_root>/P` and `<asset_root>/sap_warp/P`
   */
  asset_root?: string;
  /** more folders searched after `asset_root`, in order (the CLI's: environment, per-user cache) */
  asset_roots?: AssetRoot[];
  /** search the folders beside the scene last (`<dir>/assets`, `<dir>/../assets`, `<dir>`; default true) */
  beside_scene?: boolean;
  /** the scene file's path, for relative asset paths (aliases: `base`, `file`) */
  scene_path?: string;
  base?: string;
  file?: string;
  /** overrides the git mapping: the resolver path of a git source */
  git_path?: (git: { repo: string; rev?: string; path: string }) => string;
}

export interface LoadedArticulation {
  id: string;
  label: string;
  /** model joint indices (world 0) */
  joints: number[];
}

export interface LoadedScene {
  name: string;
  dt: number;
  num_worlds: number;
  /** per-world contact capacity */
  max_rigid_contact: number;
  /** `simulation.solver`, validated and normalized (aliases resolved), not expanded */
  solver: Record<string, unknown>;
  model: SapModel;
  /** the builder after finalize (authored world) */
  builder: ModelBuilder;
  warnings: string[];
  /** recognized features that were not built or are approximated (lenient mode), as `path: reason` */
  unsupported: string[];
  /** scene body id → model body index in world 0 (world w adds w × bodies per world) */
  body_ids: Record<string, number>;
  /** scene joint id → model joint index in world 0 */
  joint_ids: Record<string, number>;
  articulations: LoadedArticulation[];
  /** (joint_dof_count) target mode per model DOF: 0 none, 1 position, 2 velocity, 3 position_velocity, 4 effort */
  joint_target_mode: Int32Array;
  /** (joint_dof_count) actuator mode per model DOF */
  joint_actuator_mode: Int32Array;
  /** the scene's `control` block as written */
  control?: { source: string; loop?: boolean };
  /**
   * the control sequence it names, read by {@link loadSceneAsync} (the synchronous loader cannot read
   * files and warns instead); `engine/pipeline/control_sequence.ts` plays it
   */
  control_sequence?: ControlSequence;
}

/** most worlds a scene may request */
export const MAX_WORLDS = LIMITS.max_worlds;
/** most bodies over all worlds */
export const MAX_TOTAL_BODIES = LIMITS.max_total_bodies;
const DEFAULT_DT = 0.005;
const DEFAULT_MAX_RIGID_CONTACT = 256;
/**
 * [m] world spacing of a scene file without `replicate.spacing`: none, where SAP Warp's loader uses a
 * 2 m grid. On purpose: worlds are independent (the ground is shared), and at the origin the GPU's
 * fp32 / df64 kinematics keep their precision (a 64 × 64 grid at 2 m puts worlds 64 m out; the
 * 1024-world GPU parity test then misses its 1e-10 tolerance: 7e-10); the studio draws overlapping worlds side
 * by side.
 */
export const SCENE_DEFAULT_SPACING: readonly [number, number, number] = [0, 0, 0];

type Transform = [number, number, number, number, number, number, number];
type Vec3 = [number, number, number];
type AxisSpec = NonNullable<SceneDoc['joints']>[number]['axis'];
type TransformSpec = NonNullable<SceneDoc['bodies']>[number]['transform'];
type ShapeCfgRaw = Record<string, unknown>;

const SHAPE_CFG_KEYS = Object.keys(shapeCfgFields);
const UNSUPPORTED_CFG = ['restitution', 'mu_torsional', 'mu_rolling', 'kh'];

// ------------------------------------------------------------------------------------------- helpers

function resolveAxis(spec: NonNullable<AxisSpec>, path: readonly KeySegment[]): Vec3 {
  if (Array.isArray(spec)) {
    const n = Math.hypot(spec[0], spec[1], spec[2]);
    if (!(n > 0) || !Number.isFinite(n))
      throw sceneError(path, `axis must be a finite non-zero vector; got [${spec.join(', ')}]`);
    return [spec[0], spec[1], spec[2]];
  }
  const out: Vec3 = [0, 0, 0];
  if (typeof spec === 'number') {
    out[spec] = 1;
    return out;
  }
  const t = spec.trim().toLowerCase();
  const sign = t.startsWith('-') ? -1 : 1;
  out['xyz'.indexOf(t[t.length - 1])] = sign;
  return out;
}

function resolvePose(spec: TransformSpec, path: readonly KeySegment[]): Transform {
  const t: Transform = [0, 0, 0, 0, 0, 0, 1];
  if (spec === undefined || spec === 'identity') return t;
  if (spec.p) [t[0], t[1], t[2]] = spec.p;
  const q = spec.q;
  if (q === undefined || q === 'identity') return t;
  if (Array.isArray(q)) {
    const n = Math.hypot(q[0], q[1], q[2], q[3]);
    if (!(n > 1e-12) || !Number.isFinite(n))
      throw sceneError([...path, 'q'], `quaternion must be finite and non-zero`);
    for (let k = 0; k < 4; k++) t[3 + k] = q[k] / n;
    return t;
  }
  const ax = resolveAxis(q.axis_angle.axis, [...path, 'q', 'axis_angle', 'axis']);
  if (!Number.isFinite(q.axis_angle.angle))
    throw sceneError([...path, 'q', 'axis_angle', 'angle'], `angle must be finite`);
  const r = f64(t);
  quatFromAxisAngle(ax[0], ax[1], ax[2], q.axis_angle.angle, r, 3);
  return Array.from(r) as Transform;
}

function pickTransform(
  o: { transform?: TransformSpec; xform?: TransformSpec },
  path: readonly KeySegment[],
): Transform {
  if (o.transform !== undefined && o.xform !== undefined) {
    throw sceneError([...path, 'xform'], `give transform or xform, not both`);
  }
  return o.transform !== undefined
    ? resolvePose(o.transform, [...path, 'transform'])
    : resolvePose(o.xform, [...path, 'xform']);
}

function wrapModel<T>(path: readonly KeySegment[], fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ModelError) {
      const reason = e.message.startsWith(`${e.path}: `) ? e.message.slice(e.path.length + 2) : e.message;
      const dot = e.path.indexOf('.');
      const suffix = dot >= 0 ? e.path.slice(dot + 1).split('.') : [];
      throw sceneError([...path, ...suffix], reason);
    }
    throw e;
  }
}

function describeSource(a: AssetSpec): string {
  const s = a.source;
  if (typeof s === 'string') return s.trimStart().startsWith('<') ? 'inline XML' : s;
  if ('path' in s) return s.path;
  if ('xml' in s) return 'inline XML';
  return `git ${s.git.repo}${s.git.rev ? `@${s.git.rev.slice(0, 12)}` : ''}:${s.git.path}`;
}

// ------------------------------------------------------------------------------------------- loader

class SceneLoader {
  readonly ctx: LoadContext;
  readonly builder = new ModelBuilder();
  readonly auth: Authoring;
  /** inline-joint defaults the builder does not hold */
  defaultAxis: Vec3 = [1, 0, 0];
  defaultActuatorMode = 0;
  assetsSkipped = false;
  articulations: { id: string; label: string; joints: number[] }[] = [];
  /** inline mesh shapes' files, read by the async loader (source → mesh) */
  meshSources = new Map<string, TriMesh>();
  /** builder mesh indices of inline mesh shapes (key: source/scale/convex) */
  private meshCache = new Map<string, number>();

  constructor(
    readonly doc: SceneDoc,
    strict: boolean,
  ) {
    this.ctx = new LoadContext(strict);
    this.auth = new Authoring(this.builder, this.ctx);
  }

  /** canonical shape config from a block that may use aliases (and may hold non-cfg keys) */
  shapeCfg(raw: ShapeCfgRaw | undefined, path: readonly KeySegment[]): Partial<ShapeConfig> {
    const out: Record<string, unknown> = {};
    const from: Record<string, string> = {};
    if (!raw) return {};
    for (const key of SHAPE_CFG_KEYS) {
      const v = raw[key];
      if (v === undefined) continue;
      if (UNSUPPORTED_CFG.includes(key)) {
        this.ctx.unsupportedFeature([...path, key], `shape '${key}' is not stored by the model builder`);
        continue;
      }
      if (key === 'is_hydroelastic') {
        if (v === true) this.ctx.unsupportedFeature([...path, key], `hydroelastic contact is not supported`);
        continue;
      }
      const canon = SHAPE_CFG_ALIASES[key] ?? key;
      if (from[canon] !== undefined && out[canon] !== v) {
        throw sceneError(
          [...path, key],
          `'${key}' and '${from[canon]}' both set '${canon}' with different values`,
        );
      }
      if (canon === 'collision_group' && !Number.isInteger(v))
        throw sceneError([...path, key], `must be an integer`);
      out[canon] = v;
      from[canon] = key;
    }
    return out as Partial<ShapeConfig>;
  }

  shapeDesc(
    s: ShapeSpec,
    body: number,
    base: Partial<ShapeConfig>,
    path: readonly KeySegment[],
  ): ShapeDesc | undefined {
    let type: ShapeTypeName;
    let size: number[];
    switch (s.type) {
      case 'box':
        [type, size] = ['box', [s.hx, s.hy, s.hz]];
        break;
      case 'sphere':
        [type, size] = ['sphere', [s.radius]];
        break;
      case 'capsule':
      case 'cylinder':
      case 'cone':
        [type, size] = [s.type, [s.radius, s.half_height]];
        break;
      case 'ellipsoid':
        [type, size] = ['ellipsoid', [s.a, s.b, s.c]];
        break;
      case 'mesh': {
        const mesh = this.inlineMesh(s, path);
        if (mesh === undefined) return undefined;
        [type, size] = [mesh.convex ? 'convex_mesh' : 'mesh', [1, 1, 1]];
        const cfg = {
          ...base,
          ...this.shapeCfg(s as unknown as ShapeCfgRaw, path),
          ...this.shapeCfg(s.cfg, [...path, 'cfg']),
        };
        return {
          body,
          type,
          size,
          mesh: mesh.index,
          X_bs: pickTransform(s, path),
          label: s.label,
          color: s.color ? [s.color[0], s.color[1], s.color[2]] : undefined,
          cfg,
        };
      }
      case 'heightfield': {
        // an inline MuJoCo-style elevation grid (rows along y), see SapModel.hfield_*
        const bad = s.data.findIndex((v) => !Number.isFinite(v));
        if (bad >= 0)
          throw sceneError([...path, 'data', bad], `elevations must be finite; got ${s.data[bad]}`);
        const hfield = wrapModel(path, () =>
          this.builder.addHeightfield({
            nrow: s.nrow,
            ncol: s.ncol,
            size: s.size,
            data: s.data,
            label: s.label,
          }),
        );
        return {
          body,
          type: 'heightfield',
          size: [0, 0, 0],
          hfield,
          X_bs: pickTransform(s, path),
          label: s.label,
          color: s.color ? [s.color[0], s.color[1], s.color[2]] : undefined,
          cfg: {
            ...base,
            ...this.shapeCfg(s as unknown as ShapeCfgRaw, path),
            ...this.shapeCfg(s.cfg, [...path, 'cfg']),
          },
        };
      }
    }
    const cfg = {
      ...base,
      ...this.shapeCfg(s as unknown as ShapeCfgRaw, path),
      ...this.shapeCfg(s.cfg, [...path, 'cfg']),
    };
    return {
      body,
      type,
      size,
      X_bs: pickTransform(s, path),
      label: s.label,
      color: s.color ? [s.color[0], s.color[1], s.color[2]] : undefined,
      cfg,
    };
  }

  /** the builder mesh of an inline mesh shape (vertices + indices, or a `source` file read beforehand) */
  private inlineMesh(
    s: Extract<ShapeSpec, { type: 'mesh' }>,
    path: readonly KeySegment[],
  ): { index: number; convex: boolean } | undefined {
    const sc =
      s.scale === undefined ? [1, 1, 1] : typeof s.scale === 'number' ? [s.scale, s.scale, s.scale] : s.scale;
    if (sc.some((v) => v === 0)) throw sceneError([...path, 'scale'], 'scale must be non-zero');
    const convex = s.is_convex === true;
    let raw: TriMesh | undefined;
    let key: string;
    if (s.vertices !== undefined) {
      if (!s.indices || s.indices.length % 3 !== 0) {
        throw sceneError([...path, 'indices'], 'an inline mesh needs indices, 3 per triangle');
      }
      const nv = s.vertices.length;
      const bad = s.indices.find((i) => i >= nv);
      if (bad !== undefined) throw sceneError([...path, 'indices'], `index ${bad} ≥ vertex count ${nv}`);
      raw = { vertices: Float64Array.from(s.vertices.flat()), triangles: Int32Array.from(s.indices) };
      key = `inline:${formatKeyPath(path)}`;
    } else if (s.source !== undefined) {
      raw = this.meshSources.get(s.source);
      if (!raw) {
        this.ctx.unsupportedFeature(
          [...path, 'source'],
          `mesh file '${s.source}' is read by the asynchronous loader (loadSceneAsync) only`,
        );
        return undefined;
      }
      key = `file:${s.source}`;
    } else throw sceneError([...path, 'type'], 'a mesh shape needs vertices + indices or a source file');
    key += `|${sc.join(',')}|${convex}`;
    const hit = this.meshCache.get(key);
    if (hit !== undefined) return { index: hit, convex };
    let m = scaleMesh(raw, sc);
    try {
      if (convex) m = convexHull(m.vertices, key, (w) => this.ctx.warn(path, w));
    } catch (e) {
      throw sceneError(path, e instanceof Error ? e.message : String(e));
    }
    const index = wrapModel(path, () =>
      this.builder.addMesh({ vertices: m.vertices, triangles: m.triangles, label: s.label }),
    );
    this.meshCache.set(key, index);
    return { index, convex };
  }

  // 1 ------------------------------------------------------------------------------------------
  worlds(opts: LoadSceneOptions): { num_worlds: number; spacing: Vec3 } {
    const sim = this.doc.simulation?.num_worlds;
    const rep = this.doc.replicate?.num_worlds;
    if (sim !== undefined && rep !== undefined && sim !== rep) {
      this.ctx.warn('replicate.num_worlds', `differs from simulation.num_worlds (${sim}); using ${rep}`);
    }
    const n = opts.num_worlds ?? rep ?? sim ?? 1;
    if (!(Number.isInteger(n) && n >= 1 && n <= MAX_WORLDS)) {
      throw sceneError(
        opts.num_worlds !== undefined ? ['num_worlds'] : ['simulation', 'num_worlds'],
        Number.isInteger(n) && n > MAX_WORLDS
          ? limitMessage(`num_worlds = ${n}`, 'max_worlds')
          : `num_worlds must be an integer in [1, ${MAX_WORLDS}]; got ${n}`,
      );
    }
    // no spacing unless the scene gives one (SAP Warp: a 2 m grid), on purpose: see SCENE_DEFAULT_SPACING
    const sp = this.doc.replicate?.spacing ?? SCENE_DEFAULT_SPACING;
    if (sp.some((v) => !Number.isFinite(v)))
      throw sceneError(['replicate', 'spacing'], `spacing must be finite`);
    return { num_worlds: n, spacing: [sp[0], sp[1], sp[2]] };
  }

  // 2 ------------------------------------------------------------------------------------------
  builderDefaults(): void {
    const b = this.builder;
    const spec = this.doc.builder;
    b.name = this.doc.name ?? 'scene';
    // as in SAP Warp, a scene shape has no contact material unless the scene authors one (shape cfg,
    // body, asset cfg or builder.defaults.shape): NaN, which collision replaces by the solver options
    // contact_tau_d, fallback_mu and fallback_stiffness (defaults: the builder's 0.1 s, 0.5, 1e6 N/m)
    b.default_shape = { ...b.default_shape, ke: NaN, tau: NaN, mu: NaN };
    if (!spec) return;
    if (spec.gravity !== undefined) {
      b.gravity = typeof spec.gravity === 'number' ? [0, 0, spec.gravity] : [...spec.gravity];
    }
    if (spec.rigid_gap !== undefined) b.rigid_gap = spec.rigid_gap;
    if (spec.default_body_armature !== undefined) b.default_body_armature = spec.default_body_armature;
    if (spec.register_mujoco_custom_attributes) {
      this.ctx.warn('builder.register_mujoco_custom_attributes', 'accepted for compatibility; no effect');
    }
    const shape = spec.defaults?.shape;
    if (shape)
      b.default_shape = { ...b.default_shape, ...this.shapeCfg(shape, ['builder', 'defaults', 'shape']) };
    const joint = spec.defaults?.joint;
    if (joint) {
      const { axis, actuator_mode, ...dof } = joint;
      if (axis !== undefined) this.defaultAxis = resolveAxis(axis, ['builder', 'defaults', 'joint', 'axis']);
      if (actuator_mode !== undefined) this.defaultActuatorMode = actuator_mode;
      for (const [k, v] of Object.entries(dof))
        if (v !== undefined) (b.default_joint as unknown as Record<string, number>)[k] = v;
    }
  }

  // 3 ------------------------------------------------------------------------------------------
  assets(): void {
    (this.doc.assets ?? []).forEach((a, i) => {
      this.assetsSkipped = true;
      this.ctx.unsupportedFeature(
        ['assets', i],
        `${a.type} asset '${a.id}' (${describeSource(a)}): asset import lands with the importers issue`,
      );
    });
  }

  /**
   * The resolver path of an asset source (undefined for inline XML), searched as
   * `asset_roots.ts` describes; throws {@link SceneAssetNotFoundError} when no candidate exists.
   */
  private async assetPath(
    a: AssetSpec,
    i: number,
    opts: LoadSceneAsyncOptions,
    sceneDir: string,
  ): Promise<{ path?: string; text?: string }> {
    const s = a.source;
    if (typeof s === 'string' && s.trimStart().startsWith('<')) return { text: s };
    if (typeof s === 'object' && 'xml' in s) return { text: s.xml };
    const roots: AssetRoot[] = [
      ...(opts.asset_root !== undefined ? [{ dir: opts.asset_root, origin: 'asset_root' }] : []),
      ...(opts.asset_roots ?? []),
      ...(opts.beside_scene === false ? [] : besideSceneRoots(sceneDir)),
    ];
    const what = `${a.type} asset '${a.id}'`;
    const at: KeySegment[] = ['assets', i, 'source'];
    if (typeof s === 'object' && 'git' in s) {
      const g = s.git;
      if (opts.git_path) return { path: opts.git_path(g) };
      if (g.sparse?.length && !g.sparse.some((f) => isInside(g.path, f))) {
        this.ctx.warn(
          [...at, 'git', 'path'],
          `'${g.path}' lies outside the sparse folders (${g.sparse.join(', ')}); a sparse checkout of the repository would not hold it`,
        );
      }
      const tried = gitCandidates(g, roots);
      const hit = await firstExisting(opts.resolver, tried);
      if (!hit) throw gitNotFound(at, what, g, tried, roots);
      return { path: hit.path };
    }
    const p = typeof s === 'string' ? s : s.path;
    if (p.startsWith('/')) return { path: p };
    const tried = plainCandidates(p, sceneDir, roots);
    const hit = await firstExisting(opts.resolver, tried);
    if (!hit) throw plainNotFound(at, what, p, tried);
    return { path: hit.path };
  }

  /** step 3 with importers: every asset into the builder, labels prefixed `id/` */
  async importAssets(opts: LoadSceneAsyncOptions, dt: number, dtBy: string): Promise<void> {
    const scenePath = opts.scene_path ?? opts.base ?? opts.file ?? '';
    const sceneDir = scenePath.includes('/') ? scenePath.slice(0, scenePath.lastIndexOf('/')) : '';
    const assets = this.doc.assets ?? [];
    for (let i = 0; i < assets.length; i++) {
      const a = assets[i];
      const path: KeySegment[] = ['assets', i];
      const src = await this.assetPath(a, i, opts, sceneDir);
      const cfg = {
        ...this.shapeCfg(a.shape, [...path, 'shape']),
        ...this.shapeCfg(a.physics, [...path, 'physics']),
        ...this.shapeCfg(a.cfg, [...path, 'cfg']),
      };
      const io: ImportOptions = {
        resolver: opts.resolver,
        label_prefix: `${a.id}/`,
        xform: pickTransform(a, path),
        shape_cfg: cfg,
        enable_self_collisions: a.enable_self_collisions,
        hide_collision_shapes: a.hide_collision_shapes,
        force_show_colliders: a.force_show_colliders,
        floating: a.floating,
        load_visual_shapes: a.load_visual_shapes,
        parse_visuals_as_colliders: a.parse_visuals_as_colliders,
        ignore_paths: a.ignore_paths,
        skip_mesh_approximation: a.skip_mesh_approximation,
        collapse_fixed_joints: a.collapse_fixed_joints,
        ignore_inertial_definitions: a.ignore_inertial_definitions,
      };
      const jointsBefore = this.builder.joints.length;
      let res;
      try {
        res = await importAsset(
          a.type,
          this.builder,
          src.text !== undefined ? { text: src.text, path: src.path ?? scenePath } : { path: src.path! },
          io,
        );
      } catch (e) {
        if (e instanceof ImportError) {
          throw sceneError([...path, 'source'], `${a.type} asset '${a.id}': ${e.message}`);
        }
        throw e;
      }
      for (let j = jointsBefore; j < this.builder.joints.length; j++)
        this.auth.registerJoint(j, this.defaultActuatorMode);
      for (const w of res.warnings) this.ctx.warn(path, w);
      const dtWarning = timeStepOverrideWarning(res.timestep, dt, dtBy);
      if (dtWarning) this.ctx.warn(path, dtWarning);
      for (const u of res.unsupported) this.ctx.unsupportedFeature(path, `${a.type} asset '${a.id}': ${u}`);
    }
  }

  /** reads the files of inline mesh shapes (`type: mesh, source: …`) */
  async readMeshSources(opts: LoadSceneAsyncOptions): Promise<void> {
    const scenePath = opts.scene_path ?? opts.base ?? opts.file ?? '';
    const shapes: { s: ShapeSpec; path: KeySegment[] }[] = [];
    (this.doc.bodies ?? []).forEach((b, i) =>
      (b.shapes ?? []).forEach((s, k) => shapes.push({ s, path: ['bodies', i, 'shapes', k] })),
    );
    (this.doc.post_build ?? []).forEach((op, k) => {
      if (op.op === 'add_shape') shapes.push({ s: op.shape, path: ['post_build', k, 'shape'] });
    });
    for (const { s, path } of shapes) {
      if (s.type !== 'mesh' || s.source === undefined || this.meshSources.has(s.source)) continue;
      const file = opts.resolver.resolve(scenePath, s.source);
      try {
        this.meshSources.set(s.source, parseMeshBytes(await readAsset(opts.resolver, file), file));
      } catch (e) {
        throw sceneError([...path, 'source'], e instanceof Error ? e.message : String(e));
      }
    }
  }

  // 4 ------------------------------------------------------------------------------------------
  bodies(): void {
    const b = this.builder;
    (this.doc.bodies ?? []).forEach((body, i) => {
      const path: KeySegment[] = ['bodies', i];
      if (this.auth.bodyIds.has(body.id)) throw sceneError([...path, 'id'], `duplicate body id '${body.id}'`);
      const base = {
        ...this.shapeCfg(body as unknown as ShapeCfgRaw, path),
        ...this.shapeCfg(body.shape, [...path, 'shape']),
        ...this.shapeCfg(body.physics, [...path, 'physics']),
        ...this.shapeCfg(body.material, [...path, 'material']),
      };
      if (body.inertia && body.mass === undefined) {
        this.ctx.warn([...path, 'inertia'], 'inertia is used together with mass; ignored without mass');
      }
      // mass properties must be finite (YAML's .inf parses as a number)
      for (const key of ['mass', 'inertia', 'com', 'armature', 'gravcomp'] as const) {
        const v = body[key] as number | number[] | undefined;
        const arr = v === undefined ? [] : Array.isArray(v) ? v.flat() : [v];
        const bad = arr.findIndex((x) => !Number.isFinite(x));
        if (bad >= 0) throw sceneError([...path, key], `must be finite; got ${arr[bad]}`);
      }
      const index = wrapModel(path, () =>
        b.addBody({
          label: body.label ?? body.id,
          X_wb: pickTransform(body, path),
          mass: body.mass,
          inertia: body.inertia,
          com: body.com,
          armature: body.armature,
          gravcomp: body.gravcomp,
        }),
      );
      this.auth.bodyIds.set(body.id, index);
      this.auth.bodyShapeCfg[index] = base;
      const shapeCount = body.shapes?.length ?? 0;
      (body.shapes ?? []).forEach((s, k) => {
        const sp: KeySegment[] = [...path, 'shapes', k];
        const desc = this.shapeDesc(s, index, base, sp);
        // an unnamed shape is named after its body and type (`box0/box`, `arm/capsule1`), not its index
        if (desc && desc.label === undefined) {
          const type = typeof desc.type === 'string' ? desc.type : 'shape';
          desc.label = `${body.label ?? body.id}/${type}${shapeCount > 1 ? k : ''}`;
        }
        if (desc) wrapModel(sp, () => b.addShape(desc));
      });
    });
  }

  // 5 ------------------------------------------------------------------------------------------
  joints(): void {
    const b = this.builder;
    (this.doc.joints ?? []).forEach((j, i) => {
      const path: KeySegment[] = ['joints', i];
      if (this.auth.jointIds.has(j.id)) throw sceneError([...path, 'id'], `duplicate joint id '${j.id}'`);
      const parent = this.auth.findBody(j.parent ?? 'world', [...path, 'parent'], true);
      const child = this.auth.findBody(j.child, [...path, 'child'], false);
      const axis = j.axis !== undefined ? resolveAxis(j.axis, [...path, 'axis']) : this.defaultAxis;
      const dof: Partial<JointDofConfig> = {
        target_pos: j.target_pos,
        target_vel: j.target_vel,
        target_ke: j.target_ke,
        target_kd: j.target_kd,
        limit_lower: j.limit_lower,
        limit_upper: j.limit_upper,
        limit_ke: j.limit_ke,
        limit_kd: j.limit_kd,
        armature: j.armature,
        effort_limit: j.effort_limit,
        velocity_limit: j.velocity_limit,
        friction: j.friction,
        damping: j.damping,
      };
      const index = wrapModel(path, () =>
        b.addJoint({
          type: j.type,
          parent,
          child,
          X_p: resolvePose(j.parent_xform, [...path, 'parent_xform']),
          X_c: resolvePose(j.child_xform, [...path, 'child_xform']),
          axis,
          label: j.label ?? j.id,
          collision_filter_parent: j.collision_filter_parent,
          cone_mode: j.cone_mode,
          cone_limit: j.cone_limit,
          ...dof,
        }),
      );
      this.auth.jointIds.set(j.id, index);
      this.auth.registerJoint(index, j.actuator_mode ?? this.defaultActuatorMode);
    });

    // articulations: named groups of joints; the model derives its trees from connectivity
    const owner = new Map<number, string>();
    const jointOfChild = new Map<number, number>();
    b.joints.forEach((j, k) => jointOfChild.set(j.child, k));
    const rootOf = (k: number) => {
      let cur = k;
      for (let guard = 0; b.joints[cur].parent >= 0 && guard <= b.joints.length; guard++) {
        const up = jointOfChild.get(b.joints[cur].parent);
        if (up === undefined) break;
        cur = up;
      }
      return cur;
    };
    const ids = new Set<string>();
    (this.doc.articulations ?? []).forEach((a, i) => {
      const path: KeySegment[] = ['articulations', i];
      if (ids.has(a.id)) throw sceneError([...path, 'id'], `duplicate articulation id '${a.id}'`);
      ids.add(a.id);
      const joints = a.joints.map((ref, k) => {
        const j = this.auth.findJoint(ref, [...path, 'joints', k]);
        const prev = owner.get(j);
        if (prev !== undefined) {
          throw sceneError(
            [...path, 'joints', k],
            `joint '${ref}' already belongs to articulation '${prev}'`,
          );
        }
        owner.set(j, a.id);
        return j;
      });
      const roots = new Set(joints.map(rootOf));
      if (roots.size > 1) {
        this.ctx.warn(
          path,
          `articulation '${a.id}' spans ${roots.size} kinematic trees; each tree is solved as its own clique`,
        );
      }
      this.articulations.push({ id: a.id, label: a.label ?? a.id, joints });
    });
  }

  // 6 ------------------------------------------------------------------------------------------
  initialJointQ(): void {
    (this.doc.initial_joint_q ?? []).forEach((e, k) => {
      const path: KeySegment[] = ['initial_joint_q', k];
      this.guardAssetContent(path, () => {
        const idx = this.auth.coordIndex(e, path);
        this.auth.write('joint_q', [idx], [e.value], [...path, 'value']);
      });
    });
  }

  /** in a lenient load whose assets were skipped, an edit that cannot resolve is listed, not fatal */
  private guardAssetContent(path: readonly KeySegment[], fn: () => void): void {
    if (!this.assetsSkipped) return fn();
    try {
      fn();
    } catch (e) {
      if (!(e instanceof SceneError)) throw e;
      this.ctx.unsupportedFeature(path, `skipped (the assets were not imported): ${e.message}`);
    }
  }

  // 7 ------------------------------------------------------------------------------------------
  postBuild(): void {
    (this.doc.post_build ?? []).forEach((op, k) => {
      const path: KeySegment[] = ['post_build', k];
      if (this.assetsSkipped) {
        this.ctx.unsupportedFeature(
          path,
          `op '${op.op}' skipped: post_build edits refer to asset content, which was not imported`,
        );
        return;
      }
      this.applyOp(op, path);
    });
  }

  applyOp(op: PostBuildOp, path: KeySegment[]): void {
    const a = this.auth;
    const b = this.builder;
    switch (op.op) {
      case 'add_shape': {
        const body = a.findBody(op.body ?? 'world', [...path, 'body'], true);
        const desc = this.shapeDesc(op.shape, body, body >= 0 ? (a.bodyShapeCfg[body] ?? {}) : {}, [
          ...path,
          'shape',
        ]);
        if (desc) wrapModel([...path, 'shape'], () => b.addShape(desc));
        return;
      }
      case 'set_array': {
        const len = a.arrayLength(op.array);
        const idx = resolveSelection(op, len, path);
        let values: number[];
        if (op.value !== undefined) values = idx.map(() => op.value!);
        else if (op.values !== undefined) values = op.values;
        else values = this.gather(op.from_array!, idx, [...path, 'from_array']);
        a.write(op.array, idx, values, path);
        return;
      }
      case 'copy_array': {
        const dst = resolveSelection(op, a.arrayLength(op.dst), path);
        const src =
          op.src_index !== undefined || op.src_range !== undefined
            ? resolveSelection({ index: op.src_index, range: op.src_range }, a.arrayLength(op.src), path)
            : dst;
        if (src.length !== dst.length) {
          throw sceneError(path, `source selection has ${src.length} entries, destination ${dst.length}`);
        }
        a.write(op.dst, dst, this.gather(op.src, src, [...path, 'src']), path);
        return;
      }
      case 'scale_sphere_shapes': {
        let n = 0;
        for (const s of b.shapes) {
          if (s.type === ShapeType.SPHERE) {
            s.size[0] *= op.factor;
            n++;
          }
        }
        if (n === 0) this.ctx.warn(path, 'no sphere shapes to scale');
        return;
      }
      case 'approximate_meshes': {
        this.approximateMeshes(op.method ?? 'bounding_box', path);
        return;
      }
      case 'set_attr': {
        const v = op.value;
        if (op.name === 'gravity') {
          b.gravity = typeof v === 'number' ? [0, 0, v] : [v[0], v[1], v[2]];
          return;
        }
        if (typeof v !== 'number' || !(v >= 0))
          throw sceneError([...path, 'value'], `${op.name} must be a number ≥ 0`);
        if (op.name === 'rigid_gap') b.rigid_gap = v;
        else b.default_body_armature = v;
        this.ctx.warn(
          path,
          `${op.name} applies to ${op.name === 'rigid_gap' ? 'shapes' : 'bodies'} added after this op`,
        );
        return;
      }
      case 'set_joint_targets': {
        const dofs = a.selectDofs(op, path);
        if (op.mode !== undefined) {
          const m = typeof op.mode === 'number' ? op.mode : TARGET_MODES.indexOf(op.mode);
          a.write(
            'joint_target_mode',
            dofs,
            dofs.map(() => m),
            [...path, 'mode'],
          );
        }
        if (op.ke !== undefined)
          a.writeDof(
            'target_ke',
            dofs,
            dofs.map(() => op.ke!),
            [...path, 'ke'],
          );
        if (op.kd !== undefined)
          a.writeDof(
            'target_kd',
            dofs,
            dofs.map(() => op.kd!),
            [...path, 'kd'],
          );
        if (op.mode === undefined && op.ke === undefined && op.kd === undefined)
          this.ctx.warn(path, 'nothing to set (mode, ke, kd)');
        return;
      }
      case 'set_joint_q': {
        const idx = a.coordIndex(op, path);
        a.write('joint_q', [idx], [op.value], [...path, 'value']);
        return;
      }
      case 'copy_joint_q_to_joint_targets': {
        const dofs = a.selectDofs(op, path).filter((d) => {
          const t = b.joints[a.jointOfDof(d)].type;
          return t === JointType.REVOLUTE || t === JointType.PRISMATIC;
        });
        const values = dofs.map((d) => b.joints[a.jointOfDof(d)].q[0]);
        a.writeDof('target_pos', dofs, values, path);
        return;
      }
      case 'set_joint_armature': {
        const dofs = a.selectDofs(op, path);
        a.writeDof(
          'armature',
          dofs,
          dofs.map(() => op.value),
          [...path, 'value'],
        );
        return;
      }
    }
  }

  /**
   * Replaces colliding mesh shapes: `bounding_box` by their oriented bounding box, `bounding_sphere` by
   * the sphere around that box, `convex_hull` by a convex_mesh of the hull (coacd / vhacd: unsupported).
   * A body whose mass came from the replaced mesh now gets it from the replacement.
   */
  private approximateMeshes(method: string, path: readonly KeySegment[]): void {
    const b = this.builder;
    const targets = b.shapes.filter(
      (s) =>
        (s.type === ShapeType.MESH || s.type === ShapeType.CONVEX_MESH) &&
        s.mesh >= 0 &&
        s.cfg.has_shape_collision,
    );
    if (targets.length === 0) {
      this.ctx.warn(path, 'no mesh shapes; nothing to approximate');
      return;
    }
    if (method !== 'bounding_box' && method !== 'bounding_sphere' && method !== 'convex_hull') {
      this.ctx.unsupportedFeature([...path, 'method'], `mesh approximation '${method}' is not available`);
      return;
    }
    const hulls = new Map<string, number>();
    for (const s of targets) {
      const m = b.meshes[s.mesh];
      const v = new Float64Array(m.vertices.length);
      for (let i = 0; i < v.length; i++) v[i] = m.vertices[i] * (s.size[i % 3] || 1);
      if (method === 'convex_hull') {
        const key = `${s.mesh}|${s.size.join(',')}`;
        let idx = hulls.get(key);
        if (idx === undefined) {
          const h = convexHull(v, m.label, (w) => this.ctx.warn(path, w));
          idx = b.addMesh({ vertices: h.vertices, triangles: h.triangles, label: `${m.label}/hull` });
          hulls.set(key, idx);
        }
        s.type = ShapeType.CONVEX_MESH;
        s.mesh = idx;
        s.size = [1, 1, 1];
        continue;
      }
      const box = orientedBoundingBox(v);
      const local: Transform = [...box.center, ...box.quat] as Transform;
      const X = new Float64Array(7);
      transformMul(f64(s.X_bs), 0, f64(local), 0, X, 0);
      s.X_bs = Array.from(X) as Transform;
      s.mesh = -1;
      if (method === 'bounding_box') {
        s.type = ShapeType.BOX;
        s.size = [Math.max(box.half[0], 1e-6), Math.max(box.half[1], 1e-6), Math.max(box.half[2], 1e-6)];
      } else {
        s.type = ShapeType.SPHERE;
        s.size = [Math.max(Math.hypot(...box.half), 1e-6), 0, 0];
      }
    }
  }

  private gather(name: ArrayName, idx: readonly number[], path: readonly KeySegment[]): number[] {
    const src = this.auth.read(name, path);
    return idx.map((i) => {
      if (i >= src.length) {
        throw sceneError(path, `source array '${name}' has ${src.length} entries; entry ${i} does not exist`);
      }
      return src[i];
    });
  }

  // 9 ------------------------------------------------------------------------------------------
  ground(): void {
    const g = this.doc.ground;
    if (g === false) return;
    const spec = typeof g === 'object' ? g : {};
    if (spec.enabled === false) return;
    const cfg = this.shapeCfg(spec.cfg, ['ground', 'cfg']);
    wrapModel(['ground'], () => this.builder.addGround(cfg, spec.label ?? 'ground'));
  }
}

/** model joint index (within a world) of each builder joint, reproducing finalize's ordering */
function modelOrder(b: ModelBuilder, m: SapModel): number[] | undefined {
  const childrenOf = new Map<number, number[]>();
  b.joints.forEach((j, k) => {
    if (!childrenOf.has(j.parent)) childrenOf.set(j.parent, []);
    childrenOf.get(j.parent)!.push(k);
  });
  const order: number[] = [];
  for (const root of childrenOf.get(-1) ?? []) {
    const queue = [root];
    while (queue.length) {
      const j = queue.shift()!;
      order.push(j);
      for (const c of childrenOf.get(b.joints[j].child) ?? []) queue.push(c);
    }
  }
  if (order.length !== b.joints.length) return undefined;
  // verify against the model (labels, types, parents)
  const modelIndex = new Array<number>(order.length);
  order.forEach((j, k) => (modelIndex[j] = k));
  const bodyModel = new Array<number>(b.bodies.length);
  b.joints.forEach((j, k) => (bodyModel[j.child] = modelIndex[k]));
  for (let k = 0; k < order.length; k++) {
    const j = b.joints[order[k]];
    const parent = j.parent < 0 ? -1 : bodyModel[j.parent];
    if (m.joint_label[k] !== j.label || m.joint_type[k] !== j.type || m.joint_parent[k] !== parent)
      return undefined;
  }
  return modelIndex;
}

interface Prepared {
  L: SceneLoader;
  data: SceneDoc;
  dt: number;
  solver: Record<string, unknown>;
  max_rigid_contact: number;
  num_worlds: number;
  spacing: Vec3;
}

/** validation and load steps 1–2 */
function prepare(doc: unknown, opts: LoadSceneOptions): Prepared {
  const strict = opts.strict ?? false;
  // unknown keys are errors in both modes
  const { data, warnings } = assertValidScene(doc, { strict: true });
  const L = new SceneLoader(data, strict);
  L.ctx.warnings.push(...warnings);

  const dtBad = opts.dt !== undefined && timeStepProblem(opts.dt);
  if (dtBad) throw sceneError(['dt'], dtBad);
  const fileDt = data.simulation?.dt;
  const fileDtBad = fileDt !== undefined && timeStepProblem(fileDt);
  if (fileDtBad) throw sceneError(['simulation', 'dt'], fileDtBad);
  const dt = opts.dt ?? fileDt ?? DEFAULT_DT;
  const solver: Record<string, unknown> = data.simulation?.solver ?? {};
  const simCap = data.simulation?.max_rigid_contact;
  const solverCap = solver.max_rigid_contact as number | undefined;
  if (simCap !== undefined && solverCap !== undefined && simCap !== solverCap) {
    L.ctx.warn(
      'simulation.solver.max_rigid_contact',
      `differs from simulation.max_rigid_contact (${simCap}); using ${simCap}`,
    );
  }
  const max_rigid_contact = simCap ?? solverCap ?? DEFAULT_MAX_RIGID_CONTACT;
  // SAP Warp options that tune its GPU kernels: accepted, with the reason they change nothing here
  const rawSolver = (doc as { simulation?: { solver?: unknown } } | null)?.simulation?.solver;
  if (rawSolver && typeof rawSolver === 'object') {
    for (const w of inertOptionWarnings(rawSolver as Record<string, unknown>))
      L.ctx.warn(`simulation.solver.${w.key}`, w.message);
  }

  const { num_worlds, spacing } = L.worlds(opts); // 1
  const slots = max_rigid_contact * num_worlds;
  if (slots > LIMITS.max_contact_slots) {
    throw sceneError(
      simCap !== undefined || solverCap === undefined
        ? ['simulation', 'max_rigid_contact']
        : ['simulation', 'solver', 'max_rigid_contact'],
      limitMessage(
        `${max_rigid_contact} contacts × ${num_worlds} worlds = ${slots} contact slots`,
        'max_contact_slots',
      ),
    );
  }
  L.builderDefaults(); // 2
  return { L, data, dt, solver, max_rigid_contact, num_worlds, spacing };
}

/** a control file read for the scene: its path and parsed document */
interface ControlFile {
  file: string;
  doc: ControlFileDoc;
}

/** load steps 4–9, finalize and the id tables; `control`'s initial state follows step 7 */
function finish(P: Prepared, control?: ControlFile): LoadedScene {
  const { L, data, dt, solver, max_rigid_contact, num_worlds, spacing } = P;
  L.bodies(); // 4
  L.joints(); // 5
  L.initialJointQ(); // 6
  L.postBuild(); // 7
  if (control) applyControlInitialState(control.doc, control.file, L.auth, L.builder);
  L.builder.num_worlds = num_worlds; // 8
  L.builder.spacing = spacing;
  L.ground(); // 9

  const b = L.builder;
  const tooBig = builderSizeProblem(b);
  if (tooBig) throw sceneError([b.bodies.length > LIMITS.max_bodies ? 'bodies' : 'shapes'], tooBig);
  if (b.bodies.length * num_worlds > MAX_TOTAL_BODIES) {
    throw sceneError(
      ['simulation', 'num_worlds'],
      limitMessage(`${b.bodies.length} bodies × ${num_worlds} worlds`, 'max_total_bodies'),
    );
  }
  L.auth.resolveTargetModes();
  L.auth.normalizeJointQuaternions();
  const jointsBefore = b.joints.length;
  let model: SapModel;
  try {
    model = b.finalize();
    for (const w of checkBuiltModel(model, b)) L.ctx.warn('bodies', w);
  } catch (e) {
    if (e instanceof ModelError) {
      // name the scene body when the model error is about one
      const m = /^bodies\['(.*)'\]/.exec(e.path);
      const i = m ? (data.bodies ?? []).findIndex((x) => (x.label ?? x.id) === m[1]) : -1;
      throw sceneError(i >= 0 ? ['bodies', i] : [], `model: ${e.message}`);
    }
    throw e;
  }
  for (let j = jointsBefore; j < b.joints.length; j++) {
    L.auth.registerJoint(j, L.defaultActuatorMode);
    L.ctx.warn('joints', `body '${b.bodies[b.joints[j].child].label}' had no joint; a free joint was added`);
  }
  L.auth.resolveTargetModes(jointsBefore);
  if (model.joint_dof_count === 0 && model.body_count > 0) {
    L.ctx.warn('joints', 'the scene has no joint DOF; the SAP solver needs at least one');
  }

  let order = modelOrder(b, model);
  if (!order) {
    L.ctx.warn('', 'could not map authored joints to model joints; ids refer to authoring order');
    order = b.joints.map((_, k) => k);
  }
  let control_sequence: ControlSequence | undefined;
  if (control && data.control) {
    const built = buildControlSequence(
      control.doc,
      control.file,
      data.control.source,
      data.control.loop,
      b,
      model,
      order,
    );
    control_sequence = built.sequence;
    L.ctx.warnings.push(...built.warnings);
  } else if (data.control) {
    L.ctx.warn(
      ['control'],
      'the control file is read by the asynchronous loader (loadSceneAsync, with a resolver); not played',
    );
  }
  const body_ids: Record<string, number> = {};
  for (const [id, body] of L.auth.bodyIds) {
    const j = b.joints.findIndex((r) => r.child === body);
    body_ids[id] = j >= 0 ? order[j] : body;
  }
  const joint_ids: Record<string, number> = {};
  for (const [id, j] of L.auth.jointIds) joint_ids[id] = order[j];

  const joint_target_mode = new Int32Array(model.joint_dof_count);
  const joint_actuator_mode = new Int32Array(model.joint_dof_count);
  const nb = b.joints.length;
  for (let w = 0; w < model.num_worlds; w++) {
    b.joints.forEach((rec, j) => {
      const J = w * nb + order![j];
      const start = model.joint_qd_start[J];
      for (let d = 0; d < JOINT_QD_SIZE[rec.type]; d++) {
        joint_target_mode[start + d] = L.auth.targetMode[j]?.[d] ?? TargetMode.NONE;
        joint_actuator_mode[start + d] = L.auth.actuatorMode[j]?.[d] ?? 0;
      }
    });
  }

  return {
    name: data.name ?? 'scene',
    dt,
    num_worlds,
    max_rigid_contact,
    solver,
    model,
    builder: b,
    warnings: L.ctx.warnings,
    unsupported: L.ctx.unsupported,
    body_ids,
    joint_ids,
    articulations: L.articulations.map((a) => ({ ...a, joints: a.joints.map((j) => order![j]) })),
    joint_target_mode,
    joint_actuator_mode,
    control: data.control,
    ...(control_sequence ? { control_sequence } : {}),
  };
}

/** reads and parses the control file a scene names (relative to the scene file) */
async function readControlFile(P: Prepared, opts: LoadSceneAsyncOptions): Promise<ControlFile | undefined> {
  const c = P.data.control;
  if (!c) return undefined;
  const scenePath = opts.scene_path ?? opts.base ?? opts.file ?? '';
  const file = opts.resolver.resolve(scenePath, c.source);
  let bytes: Uint8Array;
  try {
    bytes = await opts.resolver.read(file);
  } catch (e) {
    throw new ControlSequenceError(
      file,
      '',
      `cannot read the control file (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  return { file, doc: parseControlFile(new TextDecoder().decode(bytes), file) };
}

/**
 * Builds a scene document (from {@link parseSceneText}, or any plain object) into a {@link SapModel}.
 * Throws only {@link SceneError}s (with line/column when the document came from scene text).
 */
export function loadScene(doc: unknown, opts: LoadSceneOptions = {}): LoadedScene {
  try {
    const P = prepare(doc, opts);
    P.L.assets(); // 3: listed as unsupported (the importers are asynchronous)
    return finish(P);
  } catch (e) {
    if (e instanceof SceneError) throw attachLocation(e, doc);
    if (e instanceof ModelError) throw attachLocation(sceneError([], `model: ${e.message}`), doc);
    throw new SceneError('', `internal loader error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Like {@link loadScene}, with step 3 done by the importers: `assets[]` (URDF, MJCF and any registered
 * format such as USD) are read through `opts.resolver` and imported with every asset option of the
 * loader doc (xform, cfg/shape/physics, enable_self_collisions, hide_collision_shapes,
 * force_show_colliders, floating, load_visual_shapes, parse_visuals_as_colliders, ignore_paths,
 * skip_mesh_approximation, collapse_fixed_joints, ignore_inertial_definitions); labels are prefixed
 * `assetid/`. Inline mesh shapes may name a `source` file. Throws only {@link SceneError}s; an asset
 * that fails to import is reported at `assets[i].source` with the importer's file:line: reason.
 */
export async function loadSceneAsync(doc: unknown, opts: LoadSceneAsyncOptions): Promise<LoadedScene> {
  try {
    const P = prepare(doc, opts);
    const dtBy =
      opts.dt !== undefined
        ? 'the dt option'
        : P.data.simulation?.dt !== undefined
          ? "the scene's simulation.dt"
          : "the scene's default dt";
    await P.L.importAssets(opts, P.dt, dtBy); // 3
    await P.L.readMeshSources(opts);
    return finish(P, await readControlFile(P, opts));
  } catch (e) {
    rethrowOutside(e);
    if (e instanceof SceneError) throw attachLocation(e, doc);
    if (e instanceof ModelError) throw attachLocation(sceneError([], `model: ${e.message}`), doc);
    throw new SceneError('', `internal loader error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** {@link parseSceneText} + {@link loadScene} */
export function loadSceneText(text: string, fileName?: string, opts: LoadSceneOptions = {}): LoadedScene {
  return loadScene(parseSceneText(text, fileName), opts);
}
