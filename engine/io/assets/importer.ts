/**
 * What every asset importer (URDF, MJCF, USD) shares: the source and option types, the result, and
 * the all-or-nothing contract. An importer parses and loads everything first, then adds to the
 * {@link ModelBuilder}; if anything fails it throws an {@link ImportError} and the builder is left
 * exactly as it was before the call ({@link withRollback}).
 */
import { ModelError, type ModelBuilder, type ShapeConfig } from '../../model';
import { ImportError } from './errors';
import { AssetError, decodeText, type AssetResolver } from './resolver';

/** where an asset comes from: a file the resolver can read, or inline text (with an optional path for relative references) */
export type ImportSource = { path: string; text?: undefined } | { text: string; path?: string };

/** options common to the importers (SAP Warp loader doc, "Imported Asset Options") */
export interface ImportOptions {
  /** reads the file and the files it references (meshes, includes); required for file sources */
  resolver?: AssetResolver;
  /** prepended to every body, joint, shape and equality label (the scene loader uses `assetid/`) */
  label_prefix?: string;
  /** root transform [px, py, pz, qx, qy, qz, qw] applied to the whole asset */
  xform?: readonly number[];
  /**
   * URDF: true gives the root link a free joint, false/undefined welds it to the world.
   * MJCF: true adds a free joint to top-level bodies without joints; false turns top-level free joints into welds.
   */
  floating?: boolean;
  /** shape material/collision overrides for every imported shape (`cfg`/`shape`/`physics`) */
  shape_cfg?: Partial<ShapeConfig>;
  /** whether shapes of this asset collide with each other (default true) */
  enable_self_collisions?: boolean;
  /** collision shapes are never visible */
  hide_collision_shapes?: boolean;
  /** collision shapes are always visible (also when the link has visual geometry) */
  force_show_colliders?: boolean;
  /** import visual geometry as non-colliding, massless visible shapes (default true) */
  load_visual_shapes?: boolean;
  /** URDF: use `<visual>` geometry as the colliders (and import no separate visuals) */
  parse_visuals_as_colliders?: boolean;
  /** USD: prim path patterns to skip */
  ignore_paths?: readonly string[];
  /** USD: keep mesh colliders as meshes */
  skip_mesh_approximation?: boolean;
  /** merge bodies connected by fixed joints (recorded as unsupported when true) */
  collapse_fixed_joints?: boolean;
  /** compute mass and inertia from the collision geometry even where the file gives them */
  ignore_inertial_definitions?: boolean;
  /**
   * how colliding meshes are represented: 'mesh' (triangle mesh) or 'convex_hull' (a convex_mesh shape
   * holding the hull). Default: URDF 'mesh', MJCF 'convex_hull' (MuJoCo collides with hulls).
   */
  mesh_collision?: 'mesh' | 'convex_hull';
  /** MJCF: name or index of a `<key>` whose qpos (and ctrl) become the initial state */
  keyframe?: string | number;
  /** MJCF: add `<site>`s as site shapes (non-colliding, massless, hidden; default true) */
  load_sites?: boolean;
}

/** why a keyframe cannot be asked of `kind` ('a scene file', 'a URDF file', …): only MJCF files have `<key>`s */
export function keyframeRefusal(kind: string): string {
  return `a keyframe selects a <key> of an MJCF file, not of ${kind}`;
}

/** one MJCF keyframe, already mapped to builder joints (public joint_q convention, xyzw quaternions) */
export interface ImportedKeyframe {
  name: string;
  time: number;
  /** builder joint index → its joint_q entries */
  joint_q: { joint: number; q: number[] }[];
  /** builder joint index → its joint_qd entries */
  joint_qd: { joint: number; qd: number[] }[];
  /** actuator controls, in actuator order (see {@link ImportResult.actuators}) */
  ctrl: number[];
}

/** an actuator as read from the file (MJCF), for controllers that drive the model */
export interface ImportedActuator {
  name: string;
  /** 'motor' (effort = gear·ctrl), 'position' / 'velocity' (realized as the joint's PD drive) */
  kind: 'motor' | 'position' | 'velocity';
  /** builder joint index; -1 for an actuator with a length transmission (see `length_actuator`) */
  joint: number;
  gear: number;
  ctrlrange?: [number, number];
  forcerange?: [number, number];
  /** builder length-actuator index (tendon or slider-crank transmission; its control is actuator_ctrl) */
  length_actuator?: number;
}

/** what an importer added to the builder (indices are builder indices, authoring order) */
export interface ImportResult {
  /** the model name in the file */
  name: string;
  bodies: number[];
  joints: number[];
  shapes: number[];
  equalities: number[];
  /** builder tendon indices (MJCF fixed tendons) */
  tendons?: number[];
  /** builder spatial-tendon indices (MJCF spatial tendons) */
  spatial_tendons?: number[];
  keyframes?: ImportedKeyframe[];
  actuators?: ImportedActuator[];
  /** the file's own simulation settings, when it has any (MJCF `<option>`) */
  timestep?: number;
  gravity?: [number, number, number];
  /** ignored or approximated content (the model is still faithful enough to simulate) */
  warnings: string[];
  /** recognized features that were not built and change the physics (strict scene loads fail on these) */
  unsupported: string[];
}

/** the importer signature every format implements (`importUrdf`, `importMjcf`, `importUsd`) */
export type Importer = (
  builder: ModelBuilder,
  source: ImportSource,
  opts?: ImportOptions,
) => Promise<ImportResult>;

/** lengths of the builder's arrays, for rollback */
function snapshot(b: ModelBuilder): number[] {
  return [
    b.bodies.length,
    b.shapes.length,
    b.joints.length,
    b.sharedShapes.length,
    b.meshes.length,
    b.hfields.length,
    b.equalities.length,
    b.filterPairs.length,
    b.tendons.length,
    b.textures.length,
    b.spatialTendons.length,
    b.lengthActuators.length,
  ];
}

function restore(b: ModelBuilder, s: number[]): void {
  (b.bodies as unknown[]).length = s[0];
  (b.shapes as unknown[]).length = s[1];
  (b.joints as unknown[]).length = s[2];
  (b.sharedShapes as unknown[]).length = s[3];
  (b.meshes as unknown[]).length = s[4];
  (b.hfields as unknown[]).length = s[5];
  (b.equalities as unknown[]).length = s[6];
  (b.filterPairs as unknown[]).length = s[7];
  (b.tendons as unknown[]).length = s[8];
  (b.textures as unknown[]).length = s[9];
  (b.spatialTendons as unknown[]).length = s[10];
  (b.lengthActuators as unknown[]).length = s[11];
}

/** converts any failure into an ImportError naming `file` */
export function toImportError(e: unknown, file?: string): ImportError {
  if (e instanceof ImportError) {
    // an error located by line alone gets the file it is in
    return e.file === undefined && file && e.constructor === ImportError
      ? new ImportError(e.reason, file, e.line, e.column)
      : e;
  }
  if (e instanceof AssetError) return new ImportError(e.message, file);
  if (e instanceof ModelError) return new ImportError(`model: ${e.message}`, file);
  // a bug, not bad input: keep the original error (and its stack) as the cause
  const wrapped = new ImportError(
    `internal importer error: ${e instanceof Error ? e.message : String(e)}`,
    file,
  );
  Object.defineProperty(wrapped, 'cause', {
    value: e,
    enumerable: false,
    configurable: true,
    writable: true,
  });
  return wrapped;
}

/**
 * Runs `fn` (which adds to the builder); on any failure the builder's arrays are truncated back to
 * their lengths before the call and the failure is rethrown as an {@link ImportError}.
 */
export async function withRollback<T>(
  b: ModelBuilder,
  file: string | undefined,
  fn: () => Promise<T> | T,
): Promise<T> {
  const s = snapshot(b);
  try {
    return await fn();
  } catch (e) {
    restore(b, s);
    throw toImportError(e, file);
  }
}

/** the source's text and the path relative references start from */
export async function readSourceText(
  source: ImportSource,
  resolver: AssetResolver | undefined,
  kind: string,
): Promise<{ text: string; path: string }> {
  if (source.text !== undefined) return { text: source.text, path: source.path ?? '' };
  if (!resolver) throw new ImportError(`a resolver is needed to read the ${kind} file`, source.path);
  return { text: decodeText(await readAsset(resolver, source.path), source.path), path: source.path };
}

/** reads a file through the resolver; any failure becomes an {@link ImportError} naming the path */
export async function readAsset(resolver: AssetResolver, path: string): Promise<Uint8Array> {
  try {
    return await resolver.read(path);
  } catch (e) {
    if (e instanceof ImportError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    throw new ImportError(msg.startsWith(path) ? msg.slice(path.length).replace(/^:\s*/, '') : msg, path);
  }
}

/** a collector of warnings and unsupported features, deduplicated */
export class ImportLog {
  readonly warnings: string[] = [];
  readonly unsupported: string[] = [];
  private readonly seen = new Set<string>();
  warn(msg: string): void {
    if (!this.seen.has(`w${msg}`)) {
      this.seen.add(`w${msg}`);
      this.warnings.push(msg);
    }
  }
  unsupportedFeature(msg: string): void {
    if (!this.seen.has(`u${msg}`)) {
      this.seen.add(`u${msg}`);
      this.unsupported.push(msg);
    }
  }
}

/** parses a whitespace-separated list of numbers; throws ImportError on a bad entry */
export function parseNumbers(
  s: string | undefined,
  what: string,
  loc: { file?: string; line?: number; column?: number },
): number[] | undefined {
  if (s === undefined) return undefined;
  const t = s.trim();
  if (t === '') return [];
  const out = t.split(/[\s,]+/).map(Number);
  if (out.some((v) => Number.isNaN(v))) {
    throw new ImportError(
      `${what}: expected numbers, got '${s.slice(0, 80)}'`,
      loc.file,
      loc.line,
      loc.column,
    );
  }
  return out;
}
