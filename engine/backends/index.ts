/**
 * Backends (SPEC §6): the CPU reference and WebGPU, behind one interface, with a factory that falls
 * back to the CPU with a stated reason when WebGPU cannot run a model.
 *
 *   const { backend, fallback } = await createBackend('webgpu', model, { solver });
 *   // fallback: undefined, or e.g. "WebGPU unavailable (no adapter …); running on the CPU backend"
 */
import type { SapModel } from '../model';
import type { Backend, BackendInitOptions, BackendKind } from './backend';
import { CpuBackend } from './cpu/cpu_backend';
import { sharedGpu, type AdapterPreference, type GpuResult } from './webgpu/device';
import { WebGpuBackend } from './webgpu/webgpu_backend';

export type { Backend, BackendInitOptions, BackendKind } from './backend';
export { precisionLabels } from './backend';
export { CpuBackend, cpuDescription } from './cpu/cpu_backend';
export { WebGpuBackend } from './webgpu/webgpu_backend';
export { BackendSimulation, type BackendSimulationOptions } from './simulation';
export {
  acquireGpu,
  sharedGpu,
  type AdapterPreference,
  type GpuHandle,
  type GpuResult,
} from './webgpu/device';

export interface CreateBackendResult {
  backend: Backend;
  /** set when another backend than the requested one runs, with the reason */
  fallback?: string;
}

export interface CreateBackendDeps {
  /** GPU acquisition (default: the shared device, hardware first, then SwiftShader in Node) */
  acquire?: () => Promise<GpuResult>;
  adapter?: AdapterPreference;
}

/** why the WebGPU backend cannot run this model, or null */
export function webgpuUnsupported(model: SapModel): string | null {
  // equality constraints (coupler, ball, weld) run on the GPU (kernels/equality.wgsl) with the
  // reference's parameters; the GPU packs them per world and keeps stiffness and τ finite
  for (let e = 0; e < model.eq_count; e++) {
    const label = model.eq_label[e] ?? `eq_${e}`;
    if (e > 0 && model.eq_world[e] < model.eq_world[e - 1])
      return `equality constraint ${label}: the WebGPU backend needs equalities sorted by world`;
    const k = model.eq_stiffness[e];
    if (!(k > 0))
      return `equality constraint ${label}: stiffness ${k} (the WebGPU backend needs a positive stiffness or Infinity)`;
    if (!(Number.isFinite(model.eq_tau[e]) && model.eq_tau[e] >= 0))
      return `equality constraint ${label}: relaxation time ${model.eq_tau[e]} (the WebGPU backend needs a finite τ ≥ 0)`;
  }
  // fixed tendons run as equality slots (kernels/equality.wgsl, tendon_limits), their Jacobian in
  // at most two tree blocks, like a contact's
  for (let t = 0; t < model.tendon_count; t++) {
    if (t > 0 && model.tendon_world[t] < model.tendon_world[t - 1])
      return `fixed tendon ${model.tendon_label[t]}: the WebGPU backend needs tendons sorted by world`;
    const trees = new Set<number>();
    for (let k = model.tendon_adr[t]; k < model.tendon_adr[t + 1]; k++)
      trees.add(model.joint_tree[model.tendon_joint[k]]);
    if (trees.size > 2)
      return `fixed tendon ${model.tendon_label[t]} spans ${trees.size} trees (the WebGPU backend takes at most 2)`;
  }
  // spatial tendons and length actuators (pipeline/transmissions.ts) have no GPU twin yet
  if (model.spatial_count > 0)
    return `spatial tendon ${model.spatial_label[0]}: spatial tendons are not on the WebGPU backend yet`;
  if (model.actuator_count > 0)
    return `actuator ${model.actuator_label[0]}: tendon and slider-crank actuators are not on the WebGPU backend yet`;
  // ball-joint cone limits (pipeline/cone_limits.ts) run as equality slots (kernels/equality.wgsl,
  // cone_limit)
  // acceleration drives scale their gains by M(q)_dd each step (pipeline/joint_constraints.ts);
  // the GPU's PD kernel has no such scaling yet
  for (let j = 0; j < model.joint_count; j++)
    for (let d = model.joint_qd_start[j]; d < model.joint_qd_start[j + 1]; d++)
      if (model.joint_drive_acceleration[d])
        return `joint ${model.joint_label[j]}: acceleration drives are not on the WebGPU backend yet`;
  return null;
}

/**
 * Creates and initializes a backend. 'webgpu' falls back to the CPU, with the reason in
 * `fallback`, when no adapter is available, the model needs a feature the GPU path lacks, or the
 * kernels fail to build.
 */
export async function createBackend(
  kind: BackendKind,
  model: SapModel,
  opts: BackendInitOptions = {},
  deps: CreateBackendDeps = {},
): Promise<CreateBackendResult> {
  const cpu = async (fallback?: string): Promise<CreateBackendResult> => {
    const backend = new CpuBackend();
    await backend.init(model, opts);
    return fallback ? { backend, fallback } : { backend };
  };
  if (kind === 'cpu') return cpu();
  const unsupported = webgpuUnsupported(model);
  if (unsupported) return cpu(`WebGPU backend not used: ${unsupported}; running on the CPU backend`);
  const res = await (deps.acquire ?? (() => sharedGpu(deps.adapter ?? 'auto')))();
  if (!res.ok) return cpu(`WebGPU unavailable (${res.reason}); running on the CPU backend`);
  const backend = new WebGpuBackend(res.gpu);
  try {
    await backend.init(model, opts);
  } catch (e) {
    backend.dispose();
    return cpu(
      `WebGPU backend failed to initialize (${(e as Error).message.split('\n')[0]}); running on the CPU backend`,
    );
  }
  return { backend };
}

/** whether WebGPU can run here (for the studio's backend switch), without creating a backend */
export async function probeWebGpu(
  deps: CreateBackendDeps = {},
): Promise<
  { available: true; description: string; software: boolean } | { available: false; reason: string }
> {
  const res = await (deps.acquire ?? (() => sharedGpu(deps.adapter ?? 'auto')))();
  if (!res.ok) return { available: false, reason: res.reason };
  return { available: true, description: res.gpu.description, software: res.gpu.software };
}
