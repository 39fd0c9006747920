/**
 * The authored world during loading: the {@link ModelBuilder} plus the loader-side per-DOF data the
 * builder does not hold (target mode, actuator mode), the scene id tables, selectors and ranges, and
 * the flattened arrays that `set_array` / `copy_array` edit (loader doc "Selectors and Ranges").
 *
 * Arrays are the authored world's, in authoring order, edited BEFORE `finalize()` so that edits are
 * replicated into every world.
 */
import {
  JOINT_QD_SIZE,
  JOINT_Q_SIZE,
  JOINT_TYPE_NAMES,
  JointType,
  ShapeFlags,
  type JointDofConfig,
  type NumericDofKey,
  type ModelBuilder,
  type ShapeConfig,
} from '../../model';
import { SceneError, SceneUnsupportedError, formatKeyPath, type KeySegment } from './errors';
import { TARGET_MODES, type ArrayName } from './schema';

/** Newton's JointTargetMode values */
export const TargetMode = { NONE: 0, POSITION: 1, VELOCITY: 2, POSITION_VELOCITY: 3, EFFORT: 4 } as const;

/** the target mode implied by a DOF's gains when none was set: ke > 0 position, kd > 0 velocity, else none */
function impliedMode(dof: JointDofConfig): number {
  return dof.target_ke > 0 ? TargetMode.POSITION : dof.target_kd > 0 ? TargetMode.VELOCITY : TargetMode.NONE;
}

/** warning / unsupported-feature sink shared by the loader stages */
export class LoadContext {
  readonly warnings: string[] = [];
  readonly unsupported: string[] = [];
  constructor(readonly strict: boolean) {}

  warn(path: readonly KeySegment[] | string, message: string): void {
    const p = typeof path === 'string' ? path : formatKeyPath(path);
    this.warnings.push(p ? `${p}: ${message}` : message);
  }

  /** a recognized feature that cannot be built: an error in strict mode, a listed entry otherwise */
  unsupportedFeature(path: readonly KeySegment[], message: string): void {
    if (this.strict) throw new SceneUnsupportedError(path, message);
    const p = formatKeyPath(path);
    this.unsupported.push(p ? `${p}: ${message}` : message);
  }
}

/** a SceneError whose keyPath is set (so a source location can be attached) */
export function sceneError(path: readonly KeySegment[], reason: string): SceneError {
  return new SceneError(path, reason, [...path]);
}

type Selection = { index?: number; range?: string | [number | null, number | null] };

/** indices selected by `index` / `range` over an array of `len` entries (Python slice semantics) */
export function resolveSelection(sel: Selection, len: number, path: readonly KeySegment[]): number[] {
  if (sel.index !== undefined) {
    const i = sel.index < 0 ? sel.index + len : sel.index;
    if (!(i >= 0 && i < len)) {
      throw sceneError(
        [...path, 'index'],
        `index ${sel.index} is out of range for an array of ${len} entries`,
      );
    }
    return [i];
  }
  const r = sel.range ?? 'all';
  const span = (a: number, b: number) => {
    const out: number[] = [];
    for (let i = a; i < b; i++) out.push(i);
    return out;
  };
  const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + len : v, 0), len);
  if (Array.isArray(r)) {
    const a = r[0] === null ? 0 : clamp(r[0]);
    const b = r[1] === null ? len : clamp(r[1]);
    return span(a, Math.max(a, b));
  }
  const s = r.replace(/\s+/g, '');
  if (s === 'all') return span(0, len);
  const [kind, nText] = s.split(':');
  const n = Number(nText);
  if (kind === 'head' || kind === 'tail') {
    if (n < 0) throw sceneError([...path, 'range'], `${kind}:N needs N ≥ 0; got ${n}`);
    return kind === 'head' ? span(0, Math.min(n, len)) : span(Math.max(len - n, 0), len);
  }
  return span(clamp(n), len); // from:N
}

const SHAPE_FIELD: Partial<Record<ArrayName, 'margin' | 'gap' | 'ke' | 'tau' | 'mu'>> = {
  shape_margin: 'margin',
  shape_gap: 'gap',
  shape_material_ke: 'ke',
  shape_material_tau: 'tau',
  shape_material_mu: 'mu',
};
const DOF_FIELD: Partial<Record<ArrayName, NumericDofKey>> = {
  joint_target_pos: 'target_pos',
  joint_target_vel: 'target_vel',
  joint_target_ke: 'target_ke',
  joint_target_kd: 'target_kd',
  joint_armature: 'armature',
};
const UNSUPPORTED_SHAPE_ARRAYS: readonly ArrayName[] = [
  'shape_material_restitution',
  'shape_material_mu_torsional',
  'shape_material_mu_rolling',
  'shape_material_kh',
];
const INT_ARRAYS: readonly ArrayName[] = ['shape_collision_group', 'shape_flags', 'joint_target_mode'];

/** joint selector keys of post-build operations */
export interface JointSelectorSpec extends Selection {
  joint?: string;
  joint_label?: string;
  joints?: string[];
  joint_labels?: string[];
  label_prefix?: string;
  match?: string;
}

export class Authoring {
  /** scene body id → builder body index */
  readonly bodyIds = new Map<string, number>();
  /** scene joint id → builder joint index */
  readonly jointIds = new Map<string, number>();
  /** body-level material of inline bodies (base of their shapes' cfg) */
  readonly bodyShapeCfg: Partial<ShapeConfig>[] = [];
  /** per joint, per DOF target mode and whether it was set explicitly */
  readonly targetMode: number[][] = [];
  readonly targetModeExplicit: boolean[][] = [];
  /** 'joint:dof' pairs whose drive gains were written by post_build array ops */
  private readonly gainsWritten = new Set<string>();
  /** per joint, per DOF actuator mode */
  readonly actuatorMode: number[][] = [];

  constructor(
    readonly builder: ModelBuilder,
    readonly ctx: LoadContext,
  ) {}

  /** registers the loader-side per-DOF data of a joint just added to the builder */
  registerJoint(j: number, actuatorMode: number): void {
    const n = JOINT_QD_SIZE[this.builder.joints[j].type];
    this.targetMode[j] = new Array<number>(n).fill(TargetMode.NONE);
    this.targetModeExplicit[j] = new Array<boolean>(n).fill(false);
    this.actuatorMode[j] = new Array<number>(n).fill(actuatorMode);
  }

  private ensureJointTables(): void {
    for (let j = 0; j < this.builder.joints.length; j++) if (!this.targetMode[j]) this.registerJoint(j, 0);
  }

  // ------------------------------------------------------------------ layout

  /** first DOF (and coordinate) of every authored joint, plus the totals at the end */
  layout(): { dofStart: number[]; qStart: number[] } {
    const dofStart = [0];
    const qStart = [0];
    for (const j of this.builder.joints) {
      dofStart.push(dofStart[dofStart.length - 1] + JOINT_QD_SIZE[j.type]);
      qStart.push(qStart[qStart.length - 1] + JOINT_Q_SIZE[j.type]);
    }
    return { dofStart, qStart };
  }

  private locate(start: number[], flat: number): [number, number] {
    // joint whose [start[j], start[j+1]) contains flat
    let lo = 0,
      hi = start.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (start[mid] <= flat) lo = mid;
      else hi = mid - 1;
    }
    while (lo < start.length - 2 && start[lo + 1] <= flat) lo++;
    return [lo, flat - start[lo]];
  }

  arrayLength(name: ArrayName): number {
    const { dofStart, qStart } = this.layout();
    if (name === 'joint_q') return qStart[qStart.length - 1];
    if (name.startsWith('joint_')) return dofStart[dofStart.length - 1];
    return this.builder.shapes.length;
  }

  // ------------------------------------------------------------------ arrays

  /** the flattened authored array */
  read(name: ArrayName, path: readonly KeySegment[]): number[] {
    this.ensureJointTables();
    const b = this.builder;
    if (UNSUPPORTED_SHAPE_ARRAYS.includes(name)) {
      this.ctx.unsupportedFeature(path, `array '${name}' is not stored by the model builder`);
      return new Array<number>(b.shapes.length).fill(0);
    }
    if (name === 'joint_q') return b.joints.flatMap((j) => j.q);
    if (name === 'joint_qd') return b.joints.flatMap((j) => j.qd);
    if (name === 'joint_target_mode') {
      return b.joints.flatMap((rec, j) =>
        this.targetMode[j].map((m, d) => (this.targetModeExplicit[j][d] ? m : impliedMode(rec.dof))),
      );
    }
    const dofField = DOF_FIELD[name];
    if (dofField) {
      return b.joints.flatMap((j) => new Array<number>(JOINT_QD_SIZE[j.type]).fill(j.dof[dofField]));
    }
    const shapeField = SHAPE_FIELD[name];
    if (shapeField) return b.shapes.map((s) => s.cfg[shapeField] as number);
    if (name === 'shape_collision_group')
      return b.shapes.map((s) => (s.cfg.has_shape_collision ? s.cfg.collision_group : 0));
    if (name === 'shape_flags') {
      return b.shapes.map(
        (s) =>
          (s.cfg.is_visible ? ShapeFlags.VISIBLE : 0) |
          (s.cfg.has_shape_collision ? ShapeFlags.COLLIDE_SHAPES : 0) |
          (s.cfg.has_particle_collision ? ShapeFlags.COLLIDE_PARTICLES : 0) |
          (s.cfg.is_site ? ShapeFlags.SITE : 0),
      );
    }
    throw sceneError(path, `array '${name}' cannot be read`);
  }

  /** writes values[k] to entry indices[k] of the named authored array */
  write(
    name: ArrayName,
    indices: readonly number[],
    values: readonly number[],
    path: readonly KeySegment[],
  ): void {
    this.ensureJointTables();
    const b = this.builder;
    if (indices.length !== values.length) {
      throw sceneError(
        path,
        `expected ${indices.length} value(s) for the selected entries of '${name}'; got ${values.length}`,
      );
    }
    for (const v of values) {
      if (!Number.isFinite(v)) throw sceneError(path, `values written to '${name}' must be finite; got ${v}`);
      if (INT_ARRAYS.includes(name) && !Number.isInteger(v)) {
        throw sceneError(path, `values written to '${name}' must be integers; got ${v}`);
      }
    }
    if (UNSUPPORTED_SHAPE_ARRAYS.includes(name)) {
      this.ctx.unsupportedFeature(path, `array '${name}' is not stored by the model builder`);
      return;
    }
    if (name === 'joint_q' || name === 'joint_qd') {
      const { dofStart, qStart } = this.layout();
      const start = name === 'joint_q' ? qStart : dofStart;
      indices.forEach((flat, k) => {
        const [j, off] = this.locate(start, flat);
        (name === 'joint_q' ? b.jointQ(j) : b.jointQd(j))[off] = values[k];
      });
      return;
    }
    if (name === 'joint_target_mode') {
      const { dofStart } = this.layout();
      indices.forEach((flat, k) => {
        if (!(values[k] >= 0 && values[k] < TARGET_MODES.length)) {
          throw sceneError(
            path,
            `joint_target_mode values must be 0..${TARGET_MODES.length - 1} (${TARGET_MODES.join(', ')})`,
          );
        }
        const [j, d] = this.locate(dofStart, flat);
        this.targetMode[j][d] = values[k];
        this.targetModeExplicit[j][d] = true;
      });
      return;
    }
    const dofField = DOF_FIELD[name];
    if (dofField) {
      this.writeDof(dofField, indices, values, path);
      return;
    }
    const shapeField = SHAPE_FIELD[name];
    indices.forEach((s, k) => {
      const cfg = b.shapes[s].cfg;
      const v = values[k];
      if (shapeField) {
        if (shapeField !== 'margin' && v < 0)
          throw sceneError(path, `'${name}' values must be ≥ 0; got ${v}`);
        cfg[shapeField] = v;
      } else if (name === 'shape_collision_group') {
        cfg.collision_group = v;
        if (v !== 0 && !cfg.has_shape_collision) {
          this.ctx.warn(path, `shape ${s} has has_shape_collision false; its collision group stays inactive`);
        }
      } else if (name === 'shape_flags') {
        if (v < 0) throw sceneError(path, `shape_flags must be ≥ 0; got ${v}`);
        cfg.is_visible = (v & ShapeFlags.VISIBLE) !== 0;
        cfg.has_shape_collision = (v & ShapeFlags.COLLIDE_SHAPES) !== 0;
        cfg.has_particle_collision = (v & ShapeFlags.COLLIDE_PARTICLES) !== 0;
        cfg.is_site = (v & ShapeFlags.SITE) !== 0;
      }
    });
  }

  /**
   * Per-DOF writes into the builder's per-joint DOF configuration. A multi-DOF joint (free, ball)
   * stores one value for all its DOFs, so a write must give all of them the same value.
   */
  writeDof(
    field: NumericDofKey,
    indices: readonly number[],
    values: readonly number[],
    _path: readonly KeySegment[],
  ): void {
    const { dofStart } = this.layout();
    if (field === 'target_ke' || field === 'target_kd') {
      for (const flat of indices) this.gainsWritten.add(this.locate(dofStart, flat).join(':'));
    }
    const perJoint = new Map<number, [number, number][]>();
    indices.forEach((flat, k) => {
      const [j, off] = this.locate(dofStart, flat);
      if (!perJoint.has(j)) perJoint.set(j, []);
      perJoint.get(j)!.push([off, values[k]]);
    });
    for (const [j, vals] of perJoint) {
      const rec = this.builder.joints[j];
      const n = JOINT_QD_SIZE[rec.type];
      if (n === 1 || (vals.length === n && vals.every(([, v]) => v === vals[0][1]))) {
        rec.dof[field] = vals[0][1];
        continue;
      }
      // a multi-DOF joint with per-DOF values
      for (const [off, v] of vals) this.builder.setDofValue(j, off, field, v);
    }
  }

  // ------------------------------------------------------------------ references

  /** builder body index of a body id or label; -1 for 'world' */
  findBody(ref: string, path: readonly KeySegment[], allowWorld: boolean): number {
    if (allowWorld && ref === 'world') return -1;
    const byId = this.bodyIds.get(ref);
    if (byId !== undefined) return byId;
    const byLabel = this.builder.bodies.map((b, i) => (b.label === ref ? i : -1)).filter((i) => i >= 0);
    if (byLabel.length === 1) return byLabel[0];
    const known = [...this.bodyIds.keys()];
    throw sceneError(
      path,
      byLabel.length > 1
        ? `body label '${ref}' is ambiguous`
        : `unknown body '${ref}'${allowWorld ? " (use 'world' for the world)" : ''}; known: ${known.join(', ') || 'none'}`,
    );
  }

  /**
   * builder joint index of a joint reference: an inline id (unless `labelOnly`), an exact label, or a
   * suffix after '/' (asset-prefixed labels).
   */
  findJoint(ref: string, path: readonly KeySegment[], labelOnly = false): number {
    if (!labelOnly) {
      const byId = this.jointIds.get(ref);
      if (byId !== undefined) return byId;
    }
    const joints = this.builder.joints;
    const exact = joints.map((j, i) => (j.label === ref ? i : -1)).filter((i) => i >= 0);
    if (exact.length === 1) return exact[0];
    if (exact.length > 1)
      throw sceneError(path, `joint label '${ref}' is ambiguous (${exact.length} joints)`);
    const suffix = joints.map((j, i) => (j.label.endsWith(`/${ref}`) ? i : -1)).filter((i) => i >= 0);
    if (suffix.length === 1) return suffix[0];
    if (suffix.length > 1)
      throw sceneError(path, `joint '${ref}' is ambiguous: ${suffix.map((i) => joints[i].label).join(', ')}`);
    const known = joints.map((j) => j.label);
    throw sceneError(
      path,
      `unknown joint '${ref}'; known: ${known.slice(0, 20).join(', ') || 'none'}${known.length > 20 ? ', …' : ''}`,
    );
  }

  /** flat index into joint_q of (joint ref + offset) or an absolute index */
  coordIndex(
    sel: { joint?: string; joint_label?: string; offset?: number; index?: number },
    path: readonly KeySegment[],
  ): number {
    const { qStart } = this.layout();
    const total = qStart[qStart.length - 1];
    if (sel.index !== undefined) {
      const i = sel.index < 0 ? sel.index + total : sel.index;
      if (!(i >= 0 && i < total))
        throw sceneError(
          [...path, 'index'],
          `index ${sel.index} is out of range for joint_q of ${total} entries`,
        );
      return i;
    }
    const key = sel.joint !== undefined ? 'joint' : 'joint_label';
    const j = this.findJoint((sel.joint ?? sel.joint_label)!, [...path, key], sel.joint === undefined);
    const n = JOINT_Q_SIZE[this.builder.joints[j].type];
    const off = sel.offset ?? 0;
    if (off >= n) {
      throw sceneError(
        [...path, sel.offset !== undefined ? 'offset' : key],
        `joint '${this.builder.joints[j].label}' (${JOINT_TYPE_NAMES[this.builder.joints[j].type]}) has ${n} position coordinate(s); offset ${off} is out of range`,
      );
    }
    return qStart[j] + off;
  }

  /** DOF indices selected by a joint selector (index/range over DOFs, or joints by reference) */
  selectDofs(sel: JointSelectorSpec, path: readonly KeySegment[]): number[] {
    const { dofStart } = this.layout();
    const total = dofStart[dofStart.length - 1];
    if (sel.index !== undefined || sel.range !== undefined) return resolveSelection(sel, total, path);
    const joints = this.builder.joints;
    let selected: number[] | undefined;
    if (sel.joint !== undefined) selected = [this.findJoint(sel.joint, [...path, 'joint'])];
    else if (sel.joint_label !== undefined)
      selected = [this.findJoint(sel.joint_label, [...path, 'joint_label'], true)];
    else if (sel.joints) selected = sel.joints.map((r, k) => this.findJoint(r, [...path, 'joints', k]));
    else if (sel.joint_labels)
      selected = sel.joint_labels.map((r, k) => this.findJoint(r, [...path, 'joint_labels', k], true));
    else if (sel.label_prefix !== undefined) {
      const p = sel.label_prefix;
      selected = joints.map((j, i) => (j.label.startsWith(p) ? i : -1)).filter((i) => i >= 0);
      if (selected.length === 0) this.noMatch([...path, 'label_prefix'], `no joint label starts with '${p}'`);
    } else if (sel.match !== undefined) {
      const m = sel.match;
      selected = joints.map((j, i) => (j.label.includes(m) ? i : -1)).filter((i) => i >= 0);
      if (selected.length === 0) this.noMatch([...path, 'match'], `no joint label contains '${m}'`);
    }
    if (!selected) return resolveSelection({ range: 'all' }, total, path);
    const out: number[] = [];
    for (const j of [...new Set(selected)].sort((a, b) => a - b)) {
      for (let d = dofStart[j]; d < dofStart[j + 1]; d++) out.push(d);
    }
    return out;
  }

  private noMatch(path: readonly KeySegment[], message: string): void {
    if (this.ctx.strict) throw sceneError(path, message);
    this.ctx.warn(path, message);
  }

  /** the joint owning each DOF */
  jointOfDof(flat: number): number {
    return this.locate(this.layout().dofStart, flat)[0];
  }

  // ------------------------------------------------------------------ before finalize

  /**
   * Resolves target modes into the builder's gains (the model has no target-mode array): a DOF whose
   * mode is none / effort gets no PD drive (ke = kd = 0), velocity mode drops ke. DOFs whose mode was
   * never set explicitly take the mode implied by their gains (ke > 0: position; kd > 0: velocity).
   */
  resolveTargetModes(fromJoint = 0): void {
    this.ensureJointTables();
    this.builder.joints.forEach((rec, j) => {
      if (j < fromJoint) return;
      const n = JOINT_QD_SIZE[rec.type];
      const ke: number[] = [];
      const kd: number[] = [];
      for (let d = 0; d < n; d++) {
        const cfg = { ...rec.dof, ...rec.dofOverride[d] };
        let mode = this.targetMode[j][d];
        if (!this.targetModeExplicit[j][d]) {
          // free and ball joints are unactuated by the builder defaults: only an explicit mode or
          // gains written by post_build drive them
          const multi = rec.type === JointType.FREE || rec.type === JointType.BALL;
          mode = multi && !this.gainsWritten.has(`${j}:${d}`) ? TargetMode.NONE : impliedMode(cfg);
          this.targetMode[j][d] = mode;
        }
        const drive = mode === TargetMode.POSITION || mode === TargetMode.POSITION_VELOCITY;
        ke.push(drive ? cfg.target_ke : 0);
        kd.push(drive || mode === TargetMode.VELOCITY ? cfg.target_kd : 0);
      }
      if (n === 0) return;
      // one warning per joint and override (the DOFs it applies to listed together)
      const overridden = new Map<string, number[]>();
      for (let d = 0; d < n; d++) {
        const cfg = { ...rec.dof, ...rec.dofOverride[d] };
        if (ke[d] === cfg.target_ke && kd[d] === cfg.target_kd) continue;
        const what = `target mode '${TARGET_MODES[this.targetMode[j][d]]}' overrides gains ke ${cfg.target_ke} → ${ke[d]}, kd ${cfg.target_kd} → ${kd[d]}`;
        overridden.set(what, [...(overridden.get(what) ?? []), d]);
        if (n === 1) {
          rec.dof.target_ke = ke[d];
          rec.dof.target_kd = kd[d];
        } else {
          this.builder.setDofValue(j, d, 'target_ke', ke[d]);
          this.builder.setDofValue(j, d, 'target_kd', kd[d]);
        }
      }
      for (const [what, dofs] of overridden)
        this.ctx.warn(
          'post_build',
          `joint '${rec.label}' DOF${dofs.length > 1 ? 's' : ''} ${dofs.join(', ')}: ${what}`,
        );
    });
  }

  /** normalizes free / ball joint quaternions (warns when they were far from unit length) */
  normalizeJointQuaternions(): void {
    this.builder.joints.forEach((rec, j) => {
      const o = rec.type === JointType.FREE ? 3 : rec.type === JointType.BALL ? 0 : -1;
      if (o < 0) return;
      const q = rec.q;
      const n = Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]);
      if (!(n > 1e-12) || !Number.isFinite(n)) {
        throw sceneError(['joints', j], `joint '${rec.label}' has a zero or invalid quaternion in joint_q`);
      }
      if (Math.abs(n - 1) > 1e-6)
        this.ctx.warn('joint_q', `joint '${rec.label}': quaternion of norm ${n} normalized`);
      for (let k = 0; k < 4; k++) q[o + k] /= n;
    });
  }
}
