/// <reference types="@webgpu/types" />
/**
 * GpuSapContext: the GPU buffers, bind groups and pipelines of one model, and the host-side packing
 * of the model, the step inputs and the uniform (layout from engine/model/layout.ts).
 *
 *   host                                   GPU
 *   SapModel ──packModel──► model_d/model_i (once)
 *   state, control, contacts ──upload──► input_d/input_i (every step)
 *   options, dt ──setParams──► Layout uniform
 *                     kernels ──► data_d/data_i ──readData──► host views
 */
import { transformInverse } from '../../math';
import { ConeMode, JointType, type SapModel } from '../../model';
import { DOF_ROWS, GPU_INFINITY, GPU_LAYOUT, arenaOf } from '../../model/layout';
import {
  LAYOUT_UNIFORM_BYTES,
  computeGpuLayout,
  gpuViews,
  makeGpuArenas,
  writeLayoutUniform,
  type GpuArenas,
  type GpuLayout,
  type GpuViews,
  type LayoutCounts,
} from '../../model/layout_views';
import { publicDofIndex } from '../../kinematics';
import { hasDrive, hasJointFriction } from '../../pipeline/joint_constraints';
import { makeContactStageData } from '../../pipeline/contact_jacobian';
import type { SapContacts } from '../../collision/contacts';
import type { SapControl, SapState } from '../../state';
import type { SapSolverOptions } from '../../sap/options';
import type { GpuHandle } from './device';
import {
  composeWgsl,
  compileModule,
  createBuffer,
  createComputePipeline,
  groups,
  readBuffer,
  toDf64,
} from './gpu';
import { KERNELS, kernelSources, type KernelDef, type KernelName } from './kernels/defs';
import { CP_MAX, gpuCollisionPlan, packCollision } from './collision';
import type { MaterialFallbacks } from '../../collision/material';

/** sizes a context is built for */
export interface GpuContextConfig {
  /** contact slots per world */
  capacity: number;
  /** Newton iteration cap (sizes the per-iteration cost history) */
  max_iterations: number;
  /** collision on the GPU (collision.ts): sizes the candidate-pair fields, compiles its kernels */
  collision?: boolean;
  /** material fallbacks of shapes without one (solver options contact_tau_d, fallback_mu, fallback_stiffness) */
  material?: Partial<MaterialFallbacks>;
}

type ArenaName = 'model_d' | 'model_i' | 'input_d' | 'input_i' | 'data_d' | 'data_i';

/** element counts of the layout for a model */
export function layoutCounts(m: SapModel, cfg: GpuContextConfig): LayoutCounts {
  let maxTreeNv = 1;
  let treeA = 0;
  for (let t = 0; t < m.tree_count; t++) {
    const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
    maxTreeNv = Math.max(maxTreeNv, nv);
    treeA += nv * nv;
  }
  let worldH = 0;
  for (let w = 0; w < m.num_worlds; w++) {
    const nv = m.world_dof_start[w + 1] - m.world_dof_start[w];
    worldH += nv * nv;
  }
  const slot = m.num_worlds * cfg.capacity;
  const eq = equalitySlots(m).length;
  return {
    one: 1,
    body: m.body_count,
    joint: m.joint_count,
    joint1: m.joint_count + 1,
    dof: m.joint_dof_count,
    coord: m.joint_coord_count,
    tree: m.tree_count,
    tree1: m.tree_count + 1,
    world: m.num_worlds,
    world1: m.num_worlds + 1,
    slot,
    slot_J: slot * 6 * maxTreeNv,
    tree_A: treeA,
    world_H: worldH,
    row: 3 * slot + DOF_ROWS * m.joint_dof_count + 6 * eq,
    gslot: 9 * slot + DOF_ROWS * m.joint_dof_count + 6 * eq,
    cost: m.num_worlds * (cfg.max_iterations + 1),
    eq,
    eq1: eq + 1,
    eq_J: eq * 12 * maxTreeNv,
    tendon_e: m.tendon_count > 0 ? m.tendon_adr[m.tendon_count] : 0,
    shape: m.shape_count,
    cpair: cfg.collision ? gpuCollisionPlan(m).count : 0,
    cpslot: cfg.collision ? gpuCollisionPlan(m).count * CP_MAX : 0,
  };
}

/** largest tree DOF count (the Jacobian block stride) */
export function maxTreeNv(m: SapModel): number {
  let n = 1;
  for (let t = 0; t < m.tree_count; t++) n = Math.max(n, m.tree_dof_start[t + 1] - m.tree_dof_start[t]);
  return n;
}

function finiteOr(x: number): number {
  if (Number.isFinite(x)) return x;
  if (Number.isNaN(x)) return 0;
  return x > 0 ? GPU_INFINITY : -GPU_INFINITY;
}

function putDf(dst: Float32Array, src: ArrayLike<number>): void {
  for (let i = 0; i < src.length; i++) toDf64(finiteOr(src[i]), dst, 2 * i);
}

/** packs the model (and its derived constants) into the host model arenas */
export function packModel(m: SapModel, v: GpuViews, material?: Partial<MaterialFallbacks>): void {
  v.joint_type.set(m.joint_type);
  v.joint_parent.set(m.joint_parent);
  v.joint_tree.set(m.joint_tree);
  v.joint_q_start.set(m.joint_q_start);
  v.joint_qd_start.set(m.joint_qd_start);
  v.tree_joint_start.set(m.tree_joint_start);
  v.tree_dof_start.set(m.tree_dof_start);
  v.tree_world.set(m.tree_world);
  let a = 0;
  for (let t = 0; t <= m.tree_count; t++) {
    v.tree_A_start[t] = a;
    if (t < m.tree_count) a += (m.tree_dof_start[t + 1] - m.tree_dof_start[t]) ** 2;
  }
  v.world_joint_start.set(m.world_joint_start);
  v.world_dof_start.set(m.world_dof_start);
  v.world_coord_start.set(m.world_coord_start);
  v.world_tree_start.set(m.world_tree_start);
  let h = 0;
  for (let w = 0; w <= m.num_worlds; w++) {
    v.world_H_start[w] = h;
    if (w < m.num_worlds) h += (m.world_dof_start[w + 1] - m.world_dof_start[w]) ** 2;
  }
  const friction = new Float64Array(m.joint_dof_count);
  for (let j = 0; j < m.joint_count; j++) {
    const s = m.joint_qd_start[j];
    const oneDof = m.joint_type[j] === JointType.REVOLUTE || m.joint_type[j] === JointType.PRISMATIC;
    for (let d = s; d < m.joint_qd_start[j + 1]; d++) {
      v.dof_public[d] = publicDofIndex(m, j, d - s);
      v.dof_drive[d] = hasDrive(m, d) ? 1 : 0;
      v.dof_limit[d] = oneDof && m.joint_limit_ke[d] > 0 ? 1 : 0;
      friction[d] = oneDof && hasJointFriction(m, d) ? m.joint_friction[d] : 0;
      v.dof_joint[d] = j;
      v.dof_tree[d] = m.joint_tree[j];
    }
  }
  putDf(v.gravity, m.gravity);
  putDf(v.body_mass, m.body_mass);
  putDf(v.body_com, m.body_com);
  putDf(v.body_inertia, m.body_inertia);
  putDf(v.body_gravcomp, m.body_gravcomp);
  putDf(v.body_inv_inertia, makeContactStageData(m).inv_inertia);
  putDf(v.joint_X_p, m.joint_X_p);
  putDf(v.joint_X_c, m.joint_X_c);
  const inv = new Float64Array(7 * m.joint_count);
  for (let j = 0; j < m.joint_count; j++) transformInverse(m.joint_X_c, 7 * j, inv, 7 * j);
  putDf(v.joint_X_c_inv, inv);
  putDf(v.joint_axis, m.joint_axis);
  putDf(v.joint_armature, m.joint_armature);
  putDf(v.joint_damping, m.joint_damping);
  putDf(v.joint_stiffness, m.joint_stiffness);
  putDf(v.joint_spring_ref, m.joint_spring_ref);
  putDf(v.joint_limit_lower, m.joint_limit_lower);
  putDf(v.joint_limit_upper, m.joint_limit_upper);
  const n = m.joint_dof_count;
  const invKe = new Float64Array(n);
  const tauD = new Float64Array(n);
  for (let d = 0; d < n; d++) {
    const ke = m.joint_limit_ke[d];
    invKe[d] = ke > 0 ? 1 / ke : 0;
    tauD[d] = ke > 0 ? m.joint_limit_kd[d] / ke : 0;
  }
  putDf(v.joint_limit_inv_ke, invKe);
  putDf(v.joint_limit_tau_d, tauD);
  putDf(v.joint_target_ke, m.joint_target_ke);
  putDf(v.joint_target_kd, m.joint_target_kd);
  putDf(v.joint_effort_limit, m.joint_effort_limit);
  putDf(v.dof_friction, friction);
  packEqualities(m, v);
  packCollision(m, v, material);
}

/** GPU slot type of a fixed tendon (after EqualityType's coupler, ball, weld) */
export const GPU_EQ_TENDON = 3;
/** GPU slot type of a ball joint's cone limit (pipeline/cone_limits.ts) */
export const GPU_EQ_CONE = 4;

/** one equality slot of the GPU: a model equality, a limited fixed tendon or a cone-limited ball */
export interface EqualitySlot {
  kind: 'equality' | 'tendon' | 'cone';
  /** index into the model's eq_* or tendon_* arrays, or the joint of a cone limit */
  index: number;
}

/**
 * The GPU's equality slots in the reference's constraint order (engine/pipeline/step.ts): per world
 * its equality constraints, then its fixed tendons with a limit (limit_ke > 0 and a finite side),
 * then its ball joints with a cone limit (limit_ke > 0 on the joint's first DOF). Equalities and
 * tendons are each sorted by world, as ModelBuilder writes them.
 */
export function equalitySlots(m: SapModel): EqualitySlot[] {
  for (let i = 1; i < m.eq_count; i++)
    if (m.eq_world[i] < m.eq_world[i - 1]) throw new Error('equality constraints must be sorted by world');
  for (let t = 1; t < m.tendon_count; t++)
    if (m.tendon_world[t] < m.tendon_world[t - 1]) throw new Error('fixed tendons must be sorted by world');
  const out: EqualitySlot[] = [];
  let e = 0;
  let t = 0;
  for (let w = 0; w < m.num_worlds; w++) {
    for (; e < m.eq_count && m.eq_world[e] === w; e++) out.push({ kind: 'equality', index: e });
    for (; t < m.tendon_count && m.tendon_world[t] === w; t++) {
      const limited = Number.isFinite(m.tendon_lower[t]) || Number.isFinite(m.tendon_upper[t]);
      if (m.tendon_limit_ke[t] > 0 && limited) out.push({ kind: 'tendon', index: t });
    }
    for (let j = m.world_joint_start[w]; j < m.world_joint_start[w + 1]; j++)
      if (hasConeSlot(m, j)) out.push({ kind: 'cone', index: j });
  }
  return out;
}

/** whether joint j is a ball with a cone limit that packConeLimits can add (limit_ke > 0) */
function hasConeSlot(m: SapModel, j: number): boolean {
  return (
    m.joint_cone_mode[j] !== ConeMode.NONE &&
    m.joint_type[j] === JointType.BALL &&
    m.joint_limit_ke[m.joint_qd_start[j]] > 0
  );
}

/** the equality slots: equality constraints, fixed tendons and cone limits, per world ({@link equalitySlots}) */
function packEqualities(m: SapModel, v: GpuViews): void {
  const slots = equalitySlots(m);
  const E = slots.length;
  let s = 0;
  for (let w = 0; w <= m.num_worlds; w++) {
    while (s < E && worldOfSlot(m, slots[s]) < w) s++;
    v.world_eq_start[w] = s;
  }
  const dd = new Float64Array(6 * E);
  const rel = new Float64Array(7 * E);
  const cp = new Float64Array(2 * E);
  const invK = new Float64Array(E);
  const tau = new Float64Array(E);
  const lim = new Float64Array(3 * E);
  slots.forEach(({ kind, index: i }, e) => {
    if (kind === 'cone') {
      // the ball joint i: mode (ConeMode) in entries[0], its cone angles in limit[0], limit[1];
      // k = limit_ke, τ = limit_kd/limit_ke of its first DOF
      v.eq_type[e] = GPU_EQ_CONE;
      v.eq_body[2 * e] = -1;
      v.eq_body[2 * e + 1] = -1;
      v.eq_joint[2 * e] = i;
      v.eq_joint[2 * e + 1] = -1;
      v.eq_entries[2 * e] = m.joint_cone_mode[i];
      v.eq_entries[2 * e + 1] = 0;
      const d = m.joint_qd_start[i];
      const k = m.joint_limit_ke[d];
      invK[e] = Number.isFinite(k) ? 1 / k : 0;
      tau[e] = Number.isFinite(k) ? m.joint_limit_kd[d] / k : 0;
      lim[3 * e] = m.joint_cone_limit[2 * i];
      lim[3 * e + 1] = m.joint_cone_limit[2 * i + 1];
      return;
    }
    if (kind === 'tendon') {
      // l = Σ coef·q + offset within [lower, upper]; k = limit_ke, τ = limit_kd/limit_ke
      v.eq_type[e] = GPU_EQ_TENDON;
      v.eq_body[2 * e] = -1;
      v.eq_body[2 * e + 1] = -1;
      v.eq_joint[2 * e] = -1;
      v.eq_joint[2 * e + 1] = -1;
      v.eq_entries[2 * e] = m.tendon_adr[i];
      v.eq_entries[2 * e + 1] = m.tendon_adr[i + 1];
      const k = m.tendon_limit_ke[i];
      invK[e] = Number.isFinite(k) ? 1 / k : 0;
      tau[e] = Number.isFinite(k) ? m.tendon_limit_kd[i] / k : 0;
      lim[3 * e] = m.tendon_lower[i];
      lim[3 * e + 1] = m.tendon_upper[i];
      lim[3 * e + 2] = m.tendon_offset[i];
      return;
    }
    v.eq_type[e] = m.eq_type[i];
    v.eq_body[2 * e] = m.eq_body0[i];
    v.eq_body[2 * e + 1] = m.eq_body1[i];
    v.eq_joint[2 * e] = m.eq_joint0[i];
    v.eq_joint[2 * e + 1] = m.eq_joint1[i];
    v.eq_entries[2 * e] = 0;
    v.eq_entries[2 * e + 1] = 0;
    for (let k = 0; k < 3; k++) {
      dd[6 * e + k] = m.eq_anchor0[3 * i + k];
      dd[6 * e + 3 + k] = m.eq_anchor1[3 * i + k];
    }
    for (let k = 0; k < 7; k++) rel[7 * e + k] = m.eq_relpose[7 * i + k];
    cp[2 * e] = m.eq_ratio[i];
    cp[2 * e + 1] = m.eq_offset[i];
    const k = m.eq_stiffness[i];
    invK[e] = Number.isFinite(k) ? 1 / k : 0;
    tau[e] = m.eq_tau[i];
  });
  putDf(v.eq_anchor, dd);
  putDf(v.eq_relpose, rel);
  putDf(v.eq_coupler, cp);
  putDf(v.eq_inv_k, invK);
  putDf(v.eq_tau, tau);
  putDf(v.eq_limit, lim);
  if (m.tendon_count > 0) {
    const n = m.tendon_adr[m.tendon_count];
    for (let k = 0; k < n; k++) v.tendon_joint[k] = m.tendon_joint[k];
    putDf(v.tendon_coef, m.tendon_coef.subarray(0, n));
  }
}

function worldOfSlot(m: SapModel, s: EqualitySlot): number {
  if (s.kind === 'cone') return m.joint_world[s.index];
  return s.kind === 'tendon' ? m.tendon_world[s.index] : m.eq_world[s.index];
}

/** doubles → df64 keeping NaN and ±Inf (the kernels detect them, like the reference) */
function putDfRaw(dst: Float32Array, src: ArrayLike<number>): void {
  for (let i = 0; i < src.length; i++) toDf64(src[i], dst, 2 * i);
}

/** packs state_in, control and contacts into the host input arenas */
export function packInputs(
  m: SapModel,
  v: GpuViews,
  state: SapState,
  control: SapControl,
  contacts: SapContacts | null,
  capacity: number,
): void {
  putDfRaw(v.joint_q, state.joint_q);
  putDfRaw(v.joint_qd, state.joint_qd);
  putDfRaw(v.body_f, state.body_f);
  putDfRaw(v.joint_f, control.joint_f);
  putDfRaw(v.joint_target_pos, control.joint_target_pos);
  putDfRaw(v.joint_target_vel, control.joint_target_vel);
  // null: the GPU collides (collision.ts) and writes the contact fields itself
  if (!contacts) return;
  if (contacts.num_worlds !== m.num_worlds || contacts.capacity !== capacity) {
    throw new Error(
      `contact buffer (${contacts.num_worlds} worlds × ${contacts.capacity}) does not match the backend (${m.num_worlds} × ${capacity})`,
    );
  }
  for (let w = 0; w < m.num_worlds; w++) {
    const count = contacts.count[w];
    v.contact_count[w] = count;
    for (let i = 0; i < count; i++) {
      const s = w * contacts.capacity + i;
      const g = w * capacity + i;
      v.contact_body0[g] = contacts.body0[s];
      v.contact_body1[g] = contacts.body1[s];
      for (let k = 0; k < 3; k++) {
        toDf64(contacts.point0[3 * s + k], v.contact_point0, 2 * (3 * g + k));
        toDf64(contacts.point1[3 * s + k], v.contact_point1, 2 * (3 * g + k));
        toDf64(contacts.normal[3 * s + k], v.contact_normal, 2 * (3 * g + k));
      }
      toDf64(contacts.phi0[s], v.contact_phi0, 2 * g);
      const ke = contacts.ke[s];
      toDf64(Number.isFinite(ke) && ke > 0 ? 1 / ke : ke > 0 ? 0 : GPU_INFINITY, v.contact_inv_ke, 2 * g);
      toDf64(finiteOr(contacts.tau[s]), v.contact_tau, 2 * g);
      toDf64(contacts.mu[s], v.contact_mu, 2 * g);
      const k0 = contacts.ke0[s],
        k1 = contacts.ke1[s];
      const sum = k0 + k1;
      toDf64(sum > 0 && Number.isFinite(sum) ? k0 / sum : 0.5, v.contact_alpha0, 2 * g);
    }
  }
}

const LS_VARIANT = { monotone_decay: 0, armijo_decay: 1, exact_root: 2 } as const;

interface PipelineCache {
  modules: Map<string, Promise<GPUShaderModule>>;
  pipelines: Map<string, Promise<GPUComputePipeline>>;
  layout: GPUPipelineLayout;
  bindGroupLayouts: GPUBindGroupLayout[];
}

const caches = new WeakMap<GPUDevice, PipelineCache>();

function pipelineCache(device: GPUDevice): PipelineCache {
  let c = caches.get(device);
  if (c) return c;
  const ro = (binding: number): GPUBindGroupLayoutEntry => ({
    binding,
    visibility: GPUShaderStage.COMPUTE,
    buffer: { type: 'read-only-storage' },
  });
  const rw = (binding: number): GPUBindGroupLayoutEntry => ({
    binding,
    visibility: GPUShaderStage.COMPUTE,
    buffer: { type: 'storage' },
  });
  const bindGroupLayouts = [
    device.createBindGroupLayout({ label: 'SapWebGpu.bindGroupLayout.model', entries: [ro(0), ro(1)] }),
    device.createBindGroupLayout({ label: 'SapWebGpu.bindGroupLayout.input', entries: [ro(0), ro(1)] }),
    device.createBindGroupLayout({ label: 'SapWebGpu.bindGroupLayout.data', entries: [rw(0), rw(1), rw(2)] }),
    device.createBindGroupLayout({
      label: 'SapWebGpu.bindGroupLayout.uniform',
      entries: [{ binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } }],
    }),
  ];
  c = {
    modules: new Map(),
    pipelines: new Map(),
    bindGroupLayouts,
    layout: device.createPipelineLayout({ label: 'SapWebGpu.pipelineLayout', bindGroupLayouts }),
  };
  caches.set(device, c);
  return c;
}

/** the kernels of one Newton update after sap_eval */
const NEWTON_STEP: readonly KernelName[] = ['sap_hessian', 'sap_factor', 'sap_solve', 'sap_linesearch'];

/** counter slots in the `counters` buffer */
export const COUNTER_ACTIVE = 0;
const COUNTER_SLOTS = 4;

export class GpuSapContext {
  readonly device: GPUDevice;
  readonly model: SapModel;
  readonly config: GpuContextConfig;
  readonly counts: LayoutCounts;
  readonly layout: GpuLayout;
  readonly maxTreeNv: number;
  /** host copies of the arenas (model and inputs are packed here before upload) */
  readonly host: GpuArenas;
  readonly views: GpuViews;
  private readonly buffers: Record<ArenaName, GPUBuffer>;
  readonly counters: GPUBuffer;
  private readonly uniform: GPUBuffer;
  private readonly bindGroups: GPUBindGroup[];
  private readonly cache: PipelineCache;
  private options: SapSolverOptions | null = null;
  private counterRead: GPUBuffer | null = null;

  constructor(gpu: GpuHandle, model: SapModel, config: GpuContextConfig) {
    this.device = gpu.device;
    this.model = model;
    this.config = config;
    this.counts = layoutCounts(model, config);
    this.layout = computeGpuLayout(this.counts);
    this.maxTreeNv = maxTreeNv(model);
    this.host = makeGpuArenas(this.layout);
    this.views = gpuViews(this.host, this.layout, this.counts);
    const dev = this.device;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const mk = (name: ArenaName) => createBuffer(dev, `SapWebGpu.${name}`, this.host[name].byteLength, usage);
    this.buffers = {
      model_d: mk('model_d'),
      model_i: mk('model_i'),
      input_d: mk('input_d'),
      input_i: mk('input_i'),
      data_d: mk('data_d'),
      data_i: mk('data_i'),
    };
    this.counters = createBuffer(dev, 'SapWebGpu.counters', COUNTER_SLOTS * 4, usage);
    this.uniform = createBuffer(
      dev,
      'SapWebGpu.layoutUniform',
      LAYOUT_UNIFORM_BYTES,
      GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    );
    this.cache = pipelineCache(dev);
    const [g0, g1, g2, g3] = this.cache.bindGroupLayouts;
    const b = this.buffers;
    this.bindGroups = [
      dev.createBindGroup({
        label: 'SapWebGpu.bindGroup.model',
        layout: g0,
        entries: [
          { binding: 0, resource: { buffer: b.model_d } },
          { binding: 1, resource: { buffer: b.model_i } },
        ],
      }),
      dev.createBindGroup({
        label: 'SapWebGpu.bindGroup.input',
        layout: g1,
        entries: [
          { binding: 0, resource: { buffer: b.input_d } },
          { binding: 1, resource: { buffer: b.input_i } },
        ],
      }),
      dev.createBindGroup({
        label: 'SapWebGpu.bindGroup.data',
        layout: g2,
        entries: [
          { binding: 0, resource: { buffer: b.data_d } },
          { binding: 1, resource: { buffer: b.data_i } },
          { binding: 2, resource: { buffer: this.counters } },
        ],
      }),
      dev.createBindGroup({
        label: 'SapWebGpu.bindGroup.uniform',
        layout: g3,
        entries: [{ binding: 0, resource: { buffer: this.uniform } }],
      }),
    ];
    packModel(model, this.views, config.material);
    this.upload('model_d');
    this.upload('model_i');
  }

  /** copies a host arena to the GPU */
  upload(name: ArenaName): void {
    const a = this.host[name];
    this.device.queue.writeBuffer(this.buffers[name], 0, a.buffer, a.byteOffset, a.byteLength);
  }

  /** writes the uniform: options, dt and the field offsets */
  setParams(o: SapSolverOptions, dt: number, hasBodyF: boolean, extrapolate = false): void {
    this.options = o;
    const buf = new ArrayBuffer(LAYOUT_UNIFORM_BYTES);
    writeLayoutUniform(
      {
        one: 1,
        num_worlds: this.model.num_worlds,
        tree_count: this.model.tree_count,
        body_count: this.model.body_count,
        dof_count: this.model.joint_dof_count,
        slot_count: this.counts.slot,
        capacity: this.config.capacity,
        max_tree_nv: this.maxTreeNv,
        cost_stride: this.config.max_iterations + 1,
        weight_mode: o.contact_weight_mode === 'diag_delassus' ? 1 : 0,
        point_mode: o.contact_point_mode === 'contact_midpoint' ? 1 : 0,
        integration: o.position_integration === 'sap_euler' ? 1 : 0,
        f64_pose: o.use_f64_boundary_pose ? 1 : 0,
        solve_fp32: o.contact_solve_precision === 'fp32' ? 1 : 0,
        has_body_f: hasBodyF ? 1 : 0,
        ls_variant: LS_VARIANT[o.line_search_variant],
        ls_max_iterations: o.line_search_max_iterations,
        max_iterations: Math.min(o.max_iterations, this.config.max_iterations),
        eq_count: this.counts.eq,
        extrapolate: extrapolate ? 1 : 0,
        dt,
        armijo_c: o.armijo_c,
        rho: o.rho,
        ls_slop: o.line_search_relative_slop,
        cost_abs_tol: o.cost_abs_tol,
        cost_rel_tol: o.cost_rel_tol,
        opt_abs_tol: o.optimality_abs_tol,
        opt_rel_tol: o.optimality_rel_tol,
        contact_beta: o.contact_beta,
        contact_sigma: o.contact_sigma,
        joint_friction_sigma: o.joint_friction_sigma,
      },
      this.layout.offsets,
      new DataView(buf),
    );
    this.device.queue.writeBuffer(this.uniform, 0, buf);
  }

  /** packs and uploads state_in, control and contacts (null: GPU collision, no contact upload) */
  uploadInputs(state: SapState, control: SapControl, contacts: SapContacts | null): void {
    packInputs(this.model, this.views, state, control, contacts, this.config.capacity);
    if (contacts) {
      this.upload('input_d');
      this.upload('input_i');
      return;
    }
    for (const f of GPU_LAYOUT) {
      if (f.arena !== 'input' || f.name.startsWith('contact_')) continue;
      const view = this.views[f.name as keyof GpuViews];
      if (view.byteLength === 0) continue;
      const arena = arenaOf(f) as ArenaName;
      this.device.queue.writeBuffer(
        this.buffers[arena],
        view.byteOffset,
        view.buffer,
        view.byteOffset,
        view.byteLength,
      );
    }
  }

  /** fills the data arenas with NaN (df64) and 0x7fc00000-pattern integers, for parity tests */
  fillDataNaN(): void {
    this.host.data_d.fill(NaN);
    this.host.data_i.fill(-0x7fffffff);
    this.upload('data_d');
    this.upload('data_i');
  }

  /** compiles (or fetches) the pipeline of a kernel for the current options */
  pipeline(name: KernelName): Promise<GPUComputePipeline> {
    if (!this.options) throw new Error('GpuSapContext.setParams must come first');
    const def: KernelDef = KERNELS[name];
    const sources = kernelSources(def, this.options);
    const key = `${sources.join('|')}#${def.entry}`;
    let p = this.cache.pipelines.get(key);
    if (!p) {
      const modKey = sources.join('|');
      let mod = this.cache.modules.get(modKey);
      if (!mod) {
        const label = `SapWebGpu.module.${def.file.replace(/^kernels\//, '').replace(/\.wgsl$/, '')}${def.precision ? `.${this.options[def.precision]}` : ''}`;
        mod = compileModule(this.device, label, composeWgsl(sources));
        this.cache.modules.set(modKey, mod);
      }
      const prec = def.precision ? `.${this.options[def.precision]}` : '';
      p = mod.then((m) =>
        createComputePipeline(
          this.device,
          `SapWebGpu.pipeline.${def.entry}${prec}`,
          this.cache.layout,
          m,
          def.entry,
        ),
      );
      this.cache.pipelines.set(key, p);
    }
    return p;
  }

  /** compiles every kernel the current options need */
  async prepare(): Promise<void> {
    // settle every compilation before reporting a failure: a pending pipeline promise at process
    // exit aborts Dawn for Node
    const names = (Object.keys(KERNELS) as KernelName[]).filter(
      (k) => this.config.collision || KERNELS[k].file !== 'kernels/collision.wgsl',
    );
    const res = await Promise.allSettled(names.map((k) => this.pipeline(k)));
    const failed = res.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** invocations of a kernel */
  size(name: KernelName): number {
    const m = this.model;
    switch (KERNELS[name].over) {
      case 'tree':
        return m.tree_count;
      case 'world':
        return m.num_worlds;
      case 'slot':
        return this.counts.slot;
      case 'dof':
        return m.joint_dof_count;
      case 'eq':
        return this.counts.eq;
      case 'pair':
        return this.counts.cpair;
    }
  }

  /** records one dispatch of a kernel into a pass */
  async dispatch(pass: GPUComputePassEncoder, name: KernelName): Promise<void> {
    const pipe = await this.pipeline(name);
    pass.setPipeline(pipe);
    for (let g = 0; g < 4; g++) pass.setBindGroup(g, this.bindGroups[g]);
    pass.dispatchWorkgroups(groups(this.size(name)));
  }

  /** runs kernels in order in one submission */
  async run(names: readonly KernelName[]): Promise<void> {
    const settled = await Promise.allSettled(names.map((n) => this.pipeline(n)));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const pipes = settled.map((r) => (r as PromiseFulfilledResult<GPUComputePipeline>).value);
    const enc = this.device.createCommandEncoder({ label: 'SapWebGpu.encoder' });
    const pass = enc.beginComputePass({ label: 'SapWebGpu.pass' });
    for (let g = 0; g < 4; g++) pass.setBindGroup(g, this.bindGroups[g]);
    names.forEach((n, i) => {
      pass.setPipeline(pipes[i]);
      pass.dispatchWorkgroups(groups(this.size(n)));
    });
    pass.end();
    this.device.queue.submit([enc.finish()]);
  }

  /** encodes kernels into an existing encoder (no submit); pipelines must be ready */
  encode(enc: GPUCommandEncoder, pipes: readonly [GPUComputePipeline, KernelName][]): void {
    const pass = enc.beginComputePass({ label: 'SapWebGpu.pass' });
    for (let g = 0; g < 4; g++) pass.setBindGroup(g, this.bindGroups[g]);
    for (const [p, n] of pipes) {
      pass.setPipeline(p);
      pass.dispatchWorkgroups(groups(this.size(n)));
    }
    pass.end();
  }

  /** reads the data arenas back into the host copies and returns the field views */
  async readData(): Promise<GpuViews> {
    const [d, i] = await Promise.all([
      readBuffer(this.device, this.buffers.data_d, 0, this.host.data_d.byteLength),
      readBuffer(this.device, this.buffers.data_i, 0, this.host.data_i.byteLength),
    ]);
    this.host.data_d.set(new Float32Array(d));
    this.host.data_i.set(new Int32Array(i));
    return this.views;
  }

  /** reads a range of data_d (in df64 elements) into the host copy */
  async readDataRange(offset: number, count: number): Promise<void> {
    const bytes = await readBuffer(this.device, this.buffers.data_d, offset * 8, Math.max(8, count * 8));
    this.host.data_d.set(new Float32Array(bytes).subarray(0, count * 2), offset * 2);
  }

  /** reads a range of data_i into the host copy */
  async readDataIntRange(offset: number, count: number): Promise<void> {
    const bytes = await readBuffer(this.device, this.buffers.data_i, offset * 4, Math.max(4, count * 4));
    this.host.data_i.set(new Int32Array(bytes).subarray(0, count), offset);
  }

  /**
   * reads the named data fields back into the host copies with one copy submission and one map
   * (fields of data_d and data_i)
   */
  async readFields(names: readonly (keyof GpuViews)[]): Promise<GpuViews> {
    const ranges: { arena: 'data_d' | 'data_i'; off: number; bytes: number; dst: number }[] = [];
    let total = 0;
    for (const n of names) {
      const view = this.views[n];
      const arena =
        view.buffer === this.host.data_d.buffer
          ? 'data_d'
          : view.buffer === this.host.data_i.buffer
            ? 'data_i'
            : null;
      if (!arena) throw new Error(`readFields: ${String(n)} is not a data field`);
      const bytes = view.byteLength;
      if (bytes === 0) continue;
      ranges.push({ arena, off: view.byteOffset, bytes, dst: total });
      total += bytes;
    }
    if (total === 0) return this.views;
    const dev = this.device;
    const staging = dev.createBuffer({
      label: 'SapWebGpu.readback',
      size: total,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    const enc = dev.createCommandEncoder({ label: 'SapWebGpu.readback' });
    for (const r of ranges) enc.copyBufferToBuffer(this.buffers[r.arena], r.off, staging, r.dst, r.bytes);
    dev.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const bytes = new Uint8Array(staging.getMappedRange());
    for (const r of ranges) {
      const host = this.host[r.arena];
      new Uint8Array(host.buffer, r.off, r.bytes).set(bytes.subarray(r.dst, r.dst + r.bytes));
    }
    staging.unmap();
    staging.destroy();
    return this.views;
  }

  /**
   * The Newton loop: iteration k runs sap_eval (which clears a world's active mask once it
   * converges or reaches the cap) and, for k < max_iterations, hessian → factor → solve → line
   * search. The number of still-active worlds is read back after every batch of iterations (the
   * first batch has 2); the loop ends when it is 0. Returns the number of iterations encoded.
   */
  async newtonLoop(maxIterations: number, batch = 4, startPasses = 0): Promise<number> {
    const dev = this.device;
    // (the accelerated warm start evaluates up to two more starts before iteration 0)
    const maxIt = Math.min(maxIterations, this.config.max_iterations) + startPasses;
    const evalPipe = await this.pipeline('sap_eval');
    const stepPipes = await Promise.all(NEWTON_STEP.map((n) => this.pipeline(n)));
    if (!this.counterRead) {
      this.counterRead = dev.createBuffer({
        label: 'SapWebGpu.counterReadback',
        size: 16,
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      });
    }
    let k = 0;
    let n = 2;
    while (k <= maxIt) {
      const enc = dev.createCommandEncoder({ label: 'SapWebGpu.newton' });
      for (let b = 0; b < n && k <= maxIt; b++, k++) {
        enc.clearBuffer(this.counters, 0, 16);
        const list: [GPUComputePipeline, KernelName][] = [[evalPipe, 'sap_eval']];
        if (k < maxIt) NEWTON_STEP.forEach((name, i) => list.push([stepPipes[i], name]));
        this.encode(enc, list);
      }
      enc.copyBufferToBuffer(this.counters, 0, this.counterRead, 0, 16);
      dev.queue.submit([enc.finish()]);
      await this.counterRead.mapAsync(GPUMapMode.READ);
      const active = new Uint32Array(this.counterRead.getMappedRange())[COUNTER_ACTIVE];
      this.counterRead.unmap();
      if (active === 0) break;
      n = batch;
    }
    return k;
  }

  /** the GPU buffer of an arena (for copies) */
  buffer(name: ArenaName): GPUBuffer {
    return this.buffers[name];
  }

  destroy(): void {
    for (const b of Object.values(this.buffers)) b.destroy();
    this.counters.destroy();
    this.uniform.destroy();
    this.counterRead?.destroy();
  }
}
