/// <reference types="@webgpu/types" />
/**
 * Host side of shaders/testing/df64_probe.wgsl: evaluates the df64 library on the device for a batch
 * of input pairs (used by the df64 accuracy test and the error-free-transform test).
 */
import { composeWgsl, compileModule, createBuffer, createComputePipeline, groups, readBuffer } from '../gpu';

export interface Df64ProbeResult {
  /** per input, 20 floats: (add, sub), (mul, div), (sqrt|a|, sin a), (two_sum, two_prod), (cos a, 0) */
  out: Float32Array;
}

/** runs the probe on `pairs` (4 floats per input: a.hi, a.lo, b.hi, b.lo) */
export async function runDf64Probe(device: GPUDevice, pairs: Float32Array): Promise<Df64ProbeResult> {
  const n = pairs.length / 4;
  const code = composeWgsl(['common/df64.wgsl', 'testing/df64_probe.wgsl']);
  const module = await compileModule(device, 'Df64Probe.module', code);
  const pipeline = await createComputePipeline(device, 'Df64Probe.pipeline', 'auto', module, 'df64_probe');
  const params = createBuffer(
    device,
    'Df64Probe.params',
    16,
    GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
  );
  const p = new ArrayBuffer(16);
  new Float32Array(p, 0, 1)[0] = 1;
  new Uint32Array(p, 4, 1)[0] = n;
  device.queue.writeBuffer(params, 0, p);
  const input = createBuffer(
    device,
    'Df64Probe.input',
    pairs.byteLength,
    GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
  );
  device.queue.writeBuffer(input, 0, pairs.buffer, pairs.byteOffset, pairs.byteLength);
  const outBytes = n * 20 * 4;
  const output = createBuffer(
    device,
    'Df64Probe.output',
    outBytes,
    GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
  );
  const bind = device.createBindGroup({
    label: 'Df64Probe.bindGroup',
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer: params } },
      { binding: 1, resource: { buffer: input } },
      { binding: 2, resource: { buffer: output } },
    ],
  });
  const enc = device.createCommandEncoder({ label: 'Df64Probe.encoder' });
  const pass = enc.beginComputePass({ label: 'Df64Probe.pass' });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  pass.dispatchWorkgroups(groups(n));
  pass.end();
  device.queue.submit([enc.finish()]);
  const out = new Float32Array(await readBuffer(device, output, 0, outBytes));
  params.destroy();
  input.destroy();
  output.destroy();
  return { out };
}
