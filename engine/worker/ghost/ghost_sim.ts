/**
 * The MuJoCo ghost's simulation: our model (world 0) exported to MJCF as the bench's MuJoCo peer
 * does it (engine/cli/peers/mjcf_export.ts), compiled by MuJoCo's official WebAssembly build
 * (`@mujoco/mujoco`), put in the live simulation's state, stepped with the same time step and the
 * same controls, and compared with the live state.
 *
 * What is mirrored: the state at a sync (joint coordinates and velocities of world 0), PD position
 * targets of driven DOFs (MuJoCo `position` actuators, ctrl = target), PD velocity targets (the
 * drive's kd·v_target as an applied generalized force, since MuJoCo's position actuator damps to
 * zero velocity), joint efforts of 1-DOF joints (`qfrc_applied`) and drags (the same spring and
 * damper on MuJoCo's body, `xfrc_applied`). What is not: a scene's control sequence, hold pose,
 * joint efforts on free joints, solver options
 * (MuJoCo solves its own contact model by design). {@link GhostSim.notMirrored} lists what of that
 * the user did.
 *
 * The MuJoCo module is passed in (the ghost worker loads the browser build with its WebAssembly
 * URL; Node tests use `loadMujoco`). Stepping and comparing allocate nothing.
 */
import { forwardKinematics, makeKinematicsData, type KinematicsData } from '../../kinematics';
import { JointType, type SapModel } from '../../model';
import { exportMjcf, setMujocoState, type MjcfExport } from '../../cli/peers/mjcf_export';
import { mujocoFromXml, type MjData, type MjModel, type MujocoModule } from '../../cli/peers/mujoco';
import type { SapState } from '../../state';

/** the parts of MuJoCo's data the ghost reads beyond the bench's view */
interface GhostMjData extends MjData {
  /** (nbody × 3) body frame origins in the world [m] */
  xpos: Float64Array;
  /** (nbody × 3) body COMs in the world [m] */
  xipos: Float64Array;
  /** (nbody × 3) each body's subtree COM [m] */
  subtree_com: Float64Array;
  /** (nbody × 6) [ω; v] of each body at its tree root's subtree COM, world axes */
  cvel: Float64Array;
  /** (nbody × 6) applied [force; torque] at each body's COM, world [N, N·m] */
  xfrc_applied: Float64Array;
  /** (nv) applied generalized forces [N or N·m] */
  qfrc_applied: Float64Array;
}
interface GhostMujoco extends MujocoModule {
  mj_name2id(m: MjModel, type: number, name: string): number;
}
interface GhostMjModel extends MjModel {
  /** (nbody) the root body of each body's tree */
  body_rootid: Int32Array;
}

/** a drag: body `body` pulled at `point` (body frame) toward `target` (world) by a spring [N/m/kg] */
export interface GhostDrag {
  body: number;
  point: number[];
  target: number[];
  stiffness: number;
}
/** mjOBJ_BODY */
const MJ_OBJ_BODY = 1;

/** why a model cannot be given to MuJoCo, or null */
export function ghostUnfit(m: SapModel): string | null {
  if (m.num_worlds !== 1) return `the ghost mirrors one world (this model has ${m.num_worlds})`;
  for (let j = 0; j < m.joint_count; j++) {
    const t = m.joint_type[j];
    if (t === JointType.BALL) return `joint ${j} is a ball joint, which the MJCF export does not write`;
    if (t === JointType.FREE && m.joint_parent[j] >= 0)
      return `joint ${j} is a free joint below another body, which the MJCF export does not write`;
  }
  return null;
}

/** one comparison of the ghost with the live simulation */
export interface GhostDelta {
  /** ‖qpos(MuJoCo) − qpos(SAP)‖ over MuJoCo's coordinates, quaternion signs aligned [m, rad] */
  dq: number;
  /** the largest distance between a body's frame origin in the two [m] */
  dxMax: number;
}

export class GhostSim {
  readonly exp: MjcfExport;
  readonly version: string;
  /** ghost steps taken since the last sync */
  stepsSinceSync = 0;
  /** the live simulation's step number the ghost is at */
  step = 0;
  private readonly mm: MjModel;
  private readonly d: GhostMjData;
  /** MuJoCo body id of each of our bodies (−1: not exported) */
  private readonly bodyId: Int32Array;
  /** MuJoCo dof address of each of our DOFs of a 1-DOF joint (−1: none) */
  private readonly dofAdr: Int32Array;
  /** our DOF of each MuJoCo actuator */
  private readonly actuatorDof: Int32Array;
  /** the free joints' qpos addresses of their quaternions (sign-aligned in comparisons) */
  private readonly quatAdr: Int32Array;
  private readonly kin: KinematicsData;
  private readonly state: SapState;
  /** the live state in MuJoCo's layout (scratch) */
  private readonly liveQpos: Float64Array;
  private readonly liveQvel: Float64Array;
  /** the control as it stands (our layout) */
  readonly targetPos: Float64Array;
  readonly targetVel: Float64Array;
  readonly jointF: Float64Array;
  private readonly notes = new Set<string>();
  private drag: GhostDrag | null = null;
  private readonly rootId: Int32Array;

  constructor(
    private readonly mj: MujocoModule,
    readonly model: SapModel,
    readonly dt: number,
  ) {
    const why = ghostUnfit(model);
    if (why) throw new Error(why);
    this.exp = exportMjcf(model, dt, 'sap_ghost');
    const { m, d } = mujocoFromXml(mj, this.exp.xml);
    this.mm = m;
    this.d = d as GhostMjData;
    this.version = mj.mj_versionString();
    const gmj = mj as GhostMujoco;
    this.bodyId = new Int32Array(model.body_count).fill(-1);
    for (let b = 0; b < model.body_count; b++)
      if (model.body_world[b] === 0) this.bodyId[b] = gmj.mj_name2id(m, MJ_OBJ_BODY, `b${b}`);
    this.dofAdr = new Int32Array(model.joint_dof_count).fill(-1);
    const quats: number[] = [];
    this.exp.joints.forEach((j, k) => {
      if (model.joint_type[j] === JointType.FREE) quats.push(m.jnt_qposadr[k] + 3);
      else this.dofAdr[model.joint_qd_start[j]] = m.jnt_dofadr[k];
    });
    this.quatAdr = Int32Array.from(quats);
    this.actuatorDof = Int32Array.from(this.exp.actuatorDof);
    this.rootId = Int32Array.from((m as GhostMjModel).body_rootid);
    this.kin = makeKinematicsData(model);
    this.state = {
      joint_q: Float64Array.from(model.joint_q0),
      joint_qd: Float64Array.from(model.joint_qd0),
      body_q: this.kin.body_X,
      body_qd: new Float64Array(model.body_count * 6),
      body_f: new Float64Array(model.body_count * 6),
      time: 0,
    };
    this.liveQpos = new Float64Array(d.qpos.length);
    this.liveQvel = new Float64Array(d.qvel.length);
    this.targetPos = Float64Array.from(model.joint_target_pos);
    this.targetVel = Float64Array.from(model.joint_target_vel);
    this.jointF = new Float64Array(model.joint_dof_count);
    this.applyControl();
  }

  /** MuJoCo's coordinate count */
  get nq(): number {
    return this.liveQpos.length;
  }

  /**
   * puts the live state (world 0's joint coordinates and public velocities, `q` and `qd` of a
   * frame: world 0 comes first) into MuJoCo at the live step `step`
   */
  sync(q: ArrayLike<number>, qd: ArrayLike<number>, step: number, time: number): void {
    this.toMujocoLayout(q, qd);
    const d = this.d;
    d.qpos.set(this.liveQpos);
    d.qvel.set(this.liveQvel);
    d.qacc_warmstart.fill(0);
    d.act.fill(0);
    d.time = time;
    this.mj.mj_forward(this.mm, d);
    this.step = step;
    this.stepsSinceSync = 0;
  }

  /** steps MuJoCo until it reaches the live step `step` (at most `maxSteps`); returns the steps taken */
  advanceTo(step: number, maxSteps = 100_000): number {
    const n = Math.min(Math.max(0, step - this.step), maxSteps);
    for (let i = 0; i < n; i++) {
      if (this.drag) this.applyDrag(this.drag);
      this.mj.mj_step(this.mm, this.d);
    }
    this.step += n;
    this.stepsSinceSync += n;
    return n;
  }

  /** the model's control: targets and efforts as loaded (a reset or load) */
  resetControl(): void {
    this.targetPos.set(this.model.joint_target_pos);
    this.targetVel.set(this.model.joint_target_vel);
    this.jointF.fill(0);
    this.notes.clear();
    this.setDrag(null);
    this.applyControl();
  }

  /** mirrors a `set_control` command (world 0's DOFs) */
  setControl(field: 'joint_f' | 'joint_target_pos' | 'joint_target_vel', dofs: number[], values: number[]) {
    const to =
      field === 'joint_f' ? this.jointF : field === 'joint_target_pos' ? this.targetPos : this.targetVel;
    for (let i = 0; i < dofs.length && i < values.length; i++) {
      const dof = dofs[i];
      if (dof < 0 || dof >= to.length) continue;
      to[dof] = values[i];
      if (field === 'joint_f' && this.dofAdr[dof] < 0) this.notes.add('joint efforts on free joints');
    }
    this.applyControl();
  }

  /**
   * mirrors a drag (`perturb`; null releases): the live simulation's spring and damper, on
   * MuJoCo's own body, applied before each step from MuJoCo's state (engine/worker/sim_host.ts
   * `applyDrag` on ours). A body MuJoCo does not have (a massless link merged away) is not dragged.
   */
  setDrag(drag: GhostDrag | null): void {
    this.d.xfrc_applied.fill(0);
    if (drag && (drag.body < 0 || drag.body >= this.bodyId.length || this.bodyId[drag.body] < 0)) {
      this.notes.add('drags of a body MuJoCo merged away');
      drag = null;
    }
    this.drag = drag;
  }

  /** the drag's wrench on MuJoCo's body at its current state, into xfrc_applied */
  private applyDrag(dr: GhostDrag): void {
    const d = this.d;
    this.mj.mj_forward(this.mm, d); // kinematics and velocities of the state about to be stepped
    const id = this.bodyId[dr.body];
    const xpos = d.xpos,
      xq = d.xquat,
      xi = d.xipos;
    // the grabbed point in the world: x = p + R(q)·point (q wxyz)
    const w = xq[id * 4],
      qx = xq[id * 4 + 1],
      qy = xq[id * 4 + 2],
      qz = xq[id * 4 + 3];
    const [px, py, pz] = dr.point;
    // t = 2 q_v × p; p' = p + w t + q_v × t
    const tx = 2 * (qy * pz - qz * py),
      ty = 2 * (qz * px - qx * pz),
      tz = 2 * (qx * py - qy * px);
    const x0 = xpos[id * 3] + px + w * tx + (qy * tz - qz * ty);
    const x1 = xpos[id * 3 + 1] + py + w * ty + (qz * tx - qx * tz);
    const x2 = xpos[id * 3 + 2] + pz + w * tz + (qx * ty - qy * tx);
    // its velocity: cvel is [ω; v] at the tree root's subtree COM
    const cv = d.cvel;
    const c = this.rootId[id] * 3;
    const sc = d.subtree_com;
    const wx = cv[id * 6],
      wy = cv[id * 6 + 1],
      wz = cv[id * 6 + 2];
    const rx = x0 - sc[c],
      ry = x1 - sc[c + 1],
      rz = x2 - sc[c + 2];
    const v0 = cv[id * 6 + 3] + wy * rz - wz * ry;
    const v1 = cv[id * 6 + 4] + wz * rx - wx * rz;
    const v2 = cv[id * 6 + 5] + wx * ry - wy * rx;
    const mass = Math.max(this.model.body_mass[dr.body], 1e-3);
    const k = dr.stiffness * mass;
    const damp = 2 * 0.7 * mass * Math.sqrt(dr.stiffness);
    let f0 = k * (dr.target[0] - x0) - damp * v0;
    let f1 = k * (dr.target[1] - x1) - damp * v1;
    let f2 = k * (dr.target[2] - x2) - damp * v2;
    const fmax = 30 * mass * 9.81;
    const fn = Math.hypot(f0, f1, f2);
    if (fn > fmax) {
      f0 *= fmax / fn;
      f1 *= fmax / fn;
      f2 *= fmax / fn;
    }
    // lever from the COM to the point
    const lx = x0 - xi[id * 3],
      ly = x1 - xi[id * 3 + 1],
      lz = x2 - xi[id * 3 + 2];
    const F = d.xfrc_applied;
    F[id * 6] = f0;
    F[id * 6 + 1] = f1;
    F[id * 6 + 2] = f2;
    F[id * 6 + 3] = ly * f2 - lz * f1;
    F[id * 6 + 4] = lz * f0 - lx * f2;
    F[id * 6 + 5] = lx * f1 - ly * f0;
  }

  /** records something the user did that the ghost does not mirror */
  note(what: string): void {
    this.notes.add(what);
  }

  /** what the user did that the ghost does not mirror */
  notMirrored(): string[] {
    return [...this.notes];
  }

  /** writes the control into MuJoCo's ctrl and qfrc_applied */
  private applyControl(): void {
    const d = this.d;
    const ctrl = d.ctrl;
    for (let k = 0; k < this.actuatorDof.length; k++) ctrl[k] = this.targetPos[this.actuatorDof[k]];
    const f = d.qfrc_applied;
    f.fill(0);
    const m = this.model;
    for (let dof = 0; dof < this.dofAdr.length; dof++) {
      const a = this.dofAdr[dof];
      if (a < 0) continue;
      // MuJoCo's position actuator is kp·(ctrl − q) − kv·q̇: ours adds kd·v_target
      f[a] = this.jointF[dof] + m.joint_target_kd[dof] * this.targetVel[dof];
    }
  }

  /**
   * compares MuJoCo with the live state `q` (world 0 first) at the same step: the coordinate
   * distance and the largest body-origin distance
   */
  compare(q: ArrayLike<number>): GhostDelta {
    this.toMujocoLayout(q, null);
    const qpos = this.d.qpos;
    const live = this.liveQpos;
    // a quaternion and its negative are the same rotation: compare with the nearer sign
    for (let k = 0; k < this.quatAdr.length; k++) {
      const a = this.quatAdr[k];
      const dot =
        qpos[a] * live[a] + qpos[a + 1] * live[a + 1] + qpos[a + 2] * live[a + 2] + qpos[a + 3] * live[a + 3];
      if (dot < 0) for (let i = 0; i < 4; i++) live[a + i] = -live[a + i];
    }
    let s = 0;
    for (let i = 0; i < live.length; i++) {
      const e = qpos[i] - live[i];
      s += e * e;
    }
    // body origins: ours from the FK of toMujocoLayout, MuJoCo's xpos (of the last step's start:
    // mj_step leaves the kinematics of the state it stepped from), so MuJoCo's are recomputed
    this.mj.mj_forward(this.mm, this.d);
    const xpos = this.d.xpos;
    const X = this.kin.body_X;
    let dx = 0;
    for (let b = 0; b < this.bodyId.length; b++) {
      const id = this.bodyId[b];
      if (id < 0) continue;
      const e = Math.hypot(
        xpos[id * 3] - X[b * 7],
        xpos[id * 3 + 1] - X[b * 7 + 1],
        xpos[id * 3 + 2] - X[b * 7 + 2],
      );
      if (e > dx) dx = e;
    }
    return { dq: Math.sqrt(s), dxMax: dx };
  }

  /**
   * writes MuJoCo's body poses into `out` in the frames' layout (7 per body: p, q xyzw), for our
   * bodies of world 0; bodies MuJoCo does not have keep NaN. Call after {@link compare} (which
   * brings MuJoCo's kinematics to its current state).
   */
  writePoses(out: Float32Array): void {
    const xpos = this.d.xpos;
    const xquat = this.d.xquat;
    for (let b = 0; b < this.bodyId.length && b * 7 + 6 < out.length; b++) {
      const id = this.bodyId[b];
      const o = b * 7;
      if (id < 0) {
        out.fill(NaN, o, o + 7);
        continue;
      }
      out[o] = xpos[id * 3];
      out[o + 1] = xpos[id * 3 + 1];
      out[o + 2] = xpos[id * 3 + 2];
      out[o + 3] = xquat[id * 4 + 1];
      out[o + 4] = xquat[id * 4 + 2];
      out[o + 5] = xquat[id * 4 + 3];
      out[o + 6] = xquat[id * 4];
    }
  }

  /** MuJoCo's current qpos (a copy, for tests) */
  qpos(): Float64Array {
    return Float64Array.from(this.d.qpos);
  }

  dispose(): void {
    this.d.delete();
    this.mm.delete();
  }

  /** our state (world 0) in MuJoCo's layout, into liveQpos / liveQvel (qd null: positions only) */
  private toMujocoLayout(q: ArrayLike<number>, qd: ArrayLike<number> | null): void {
    const st = this.state;
    const n = st.joint_q.length;
    for (let i = 0; i < n; i++) st.joint_q[i] = q[i];
    if (qd) for (let i = 0; i < st.joint_qd.length; i++) st.joint_qd[i] = qd[i];
    forwardKinematics(this.model, st.joint_q, this.kin);
    if (qd) this.bodyVelocities();
    setMujocoState(this.model, st, this.exp, this.mm, { qpos: this.liveQpos, qvel: this.liveQvel });
  }

  /**
   * body_qd of free-jointed bodies from their public joint velocities ([v_COM; ω] in world, the
   * same as body_qd's layout for a root body); other joints' velocities are copied directly by
   * setMujocoState
   */
  private bodyVelocities(): void {
    const m = this.model;
    const st = this.state;
    for (let j = 0; j < m.joint_count; j++) {
      if (m.joint_type[j] !== JointType.FREE) continue;
      const a = m.joint_qd_start[j];
      for (let i = 0; i < 6; i++) st.body_qd[j * 6 + i] = st.joint_qd[a + i];
    }
  }
}
