/// <reference types="@webgpu/types" />
/**
 * Small WebGPU helpers: shader composition from the embedded WGSL sources, compilation with
 * readable errors, labelled buffers and read-back. Every GPU object gets a 'Module.resource' label.
 */
import { WGSL_SOURCES } from './generated/shaders';

/** concatenates WGSL sources (paths under shaders/) into one module text */
export function composeWgsl(paths: readonly string[], prelude = ''): string {
  const parts = [prelude];
  for (const p of paths) {
    const src = WGSL_SOURCES[p];
    if (src === undefined) throw new Error(`unknown WGSL source '${p}' (run npx tsx scripts/gen_gpu.ts)`);
    parts.push(`// ---- ${p}\n${src}`);
  }
  return parts.join('\n');
}

/** a shader compilation error with the compiler's messages */
export class ShaderCompileError extends Error {
  constructor(label: string, messages: string) {
    super(`${label}: WGSL compilation failed\n${messages}`);
    this.name = 'ShaderCompileError';
  }
}

/** compiles a module; throws {@link ShaderCompileError} listing the errors with line numbers */
export async function compileModule(
  device: GPUDevice,
  label: string,
  code: string,
): Promise<GPUShaderModule> {
  const module = device.createShaderModule({ label, code });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length) {
    const lines = code.split('\n');
    const text = errors
      .map((m) => `  line ${m.lineNum}:${m.linePos}: ${m.message}\n    ${lines[m.lineNum - 1]?.trim() ?? ''}`)
      .join('\n');
    throw new ShaderCompileError(label, text);
  }
  return module;
}

/** compute pipeline creation that reports validation errors as exceptions */
export async function createComputePipeline(
  device: GPUDevice,
  label: string,
  layout: GPUPipelineLayout | 'auto',
  module: GPUShaderModule,
  entryPoint: string,
): Promise<GPUComputePipeline> {
  device.pushErrorScope('validation');
  const pipeline = await device.createComputePipelineAsync({
    label,
    layout,
    compute: { module, entryPoint },
  });
  const err = await device.popErrorScope();
  if (err) throw new Error(`${label}: ${err.message}`);
  return pipeline;
}

/** a labelled buffer; size is rounded up to a multiple of 4 bytes (at least 16) */
export function createBuffer(
  device: GPUDevice,
  label: string,
  size: number,
  usage: GPUBufferUsageFlags,
): GPUBuffer {
  return device.createBuffer({ label, size: Math.max(16, Math.ceil(size / 4) * 4), usage });
}

/** copies `size` bytes of `src` from `offset` to the host */
export async function readBuffer(
  device: GPUDevice,
  src: GPUBuffer,
  offset = 0,
  size = src.size,
): Promise<ArrayBuffer> {
  const staging = device.createBuffer({
    label: 'Gpu.readback',
    size,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const enc = device.createCommandEncoder({ label: 'Gpu.readback' });
  enc.copyBufferToBuffer(src, offset, staging, 0, size);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = staging.getMappedRange().slice(0);
  staging.unmap();
  staging.destroy();
  return out;
}

/** number of workgroups of `size` invocations covering n (at least 1) */
export function groups(n: number, size = 64): number {
  return Math.max(1, Math.ceil(n / size));
}

/** splits a double into the nearest f32 and the f32 of the remainder (df64, SPEC §3.7) */
export function toDf64(x: number, out: Float32Array, o: number): void {
  const hi = Math.fround(x);
  out[o] = hi;
  out[o + 1] = Number.isFinite(hi) ? Math.fround(x - hi) : 0;
}

/** the double nearest a df64 value */
export function fromDf64(a: Float32Array, o: number): number {
  return a[o] + a[o + 1];
}
