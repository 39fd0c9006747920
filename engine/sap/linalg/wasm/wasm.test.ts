import { describe, expect, it } from 'vitest';
import { staleWasmFiles } from '../../../../scripts/gen_wasm';
import { LinalgWasm } from './kernels';

describe('linear-algebra WebAssembly kernels', () => {
  it('the embedded binary is what scripts/gen_wasm.ts compiles from kernels.as.ts', () => {
    const stale = staleWasmFiles();
    expect(stale, `stale generated files: ${stale.join(', ')}; run npx tsx scripts/gen_wasm.ts`).toEqual([]);
  }, 60_000);

  it('instantiates in Node and grows its memory on demand', () => {
    const w = LinalgWasm.create();
    expect(w).not.toBeNull();
    const before = w!.buffer.byteLength;
    expect(w!.reserve(before + 1)).toBe(true);
    expect(w!.buffer.byteLength).toBeGreaterThan(before);
    expect(typeof w!.exports.factor32).toBe('function');
  });
});
