/**
 * The hostile inputs of `bounded_input.test.ts`, each generated here (no fixtures) and run in a
 * process of its own so its peak memory is its own: `node --import tsx bounded_input_cases.ts CASE`
 * prints one JSON line `{ case, peak_mib, outcome, name, message }`. The peak is the process's peak
 * resident size (Linux VmHWM, reset just before the case runs) over its resident size
 * (`process.memoryUsage().rss`) once the input is built; elsewhere the larger of the rss samples.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Deflate } from 'fflate';
import { loadModelAsset } from './import';
import { parseObj } from './mesh';
import { readUsdz } from './usd';

const MiB = 1024 * 1024;

/** a zip archive from its parts: each entry's local header offset may be given to overlap entries */
export function zipOf(
  entries: { name: string; data: Uint8Array; method: number; size: number; at?: number }[],
): Uint8Array {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const offsets: number[] = [];
  let pos = 0;
  const push = (b: Uint8Array) => {
    chunks.push(b);
    pos += b.length;
  };
  for (const e of entries) {
    if (e.at !== undefined) {
      offsets.push(e.at);
      continue;
    }
    const name = enc.encode(e.name);
    const h = new DataView(new ArrayBuffer(30));
    h.setUint32(0, 0x04034b50, true);
    h.setUint16(4, 20, true);
    h.setUint16(8, e.method, true);
    h.setUint32(18, e.data.length, true);
    h.setUint32(22, e.size, true);
    h.setUint16(26, name.length, true);
    offsets.push(pos);
    push(new Uint8Array(h.buffer));
    push(name);
    push(e.data);
  }
  const cdStart = pos;
  entries.forEach((e, i) => {
    const name = enc.encode(e.name);
    // an overlapping entry declares the data of the entry whose header it points at
    const of = e.at !== undefined ? entries.find((x, j) => j < i && offsets[j] === e.at)! : e;
    const c = new DataView(new ArrayBuffer(46));
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, 20, true);
    c.setUint16(6, 20, true);
    c.setUint16(10, of.method, true);
    c.setUint32(20, of.data.length, true);
    c.setUint32(24, of.size, true);
    c.setUint16(28, name.length, true);
    c.setUint32(42, offsets[i], true);
    push(new Uint8Array(c.buffer));
    push(name);
  });
  const eocd = new DataView(new ArrayBuffer(22));
  eocd.setUint32(0, 0x06054b50, true);
  eocd.setUint16(8, entries.length, true);
  eocd.setUint16(10, entries.length, true);
  eocd.setUint32(12, pos - cdStart, true);
  eocd.setUint32(16, cdStart, true);
  push(new Uint8Array(eocd.buffer));
  const out = new Uint8Array(pos);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/**
 * a raw deflate stream of `mib` MiB of USDA-like text that compresses about 110:1 (under
 * max_compression_ratio): each MiB is comment lines of pseudo-random letters, then spaces
 */
export function deflatedText(mib: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const d = new Deflate({ level: 1 }, (chunk) => parts.push(chunk));
  let seed = 12345;
  const block = new Uint8Array(MiB).fill(0x20);
  for (let m = 0; m < mib; m++) {
    for (let i = 0; i < 9000; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      block[i] = i % 64 === 0 ? 0x0a : i % 64 === 1 ? 0x23 : 0x61 + ((seed >>> 16) % 26);
    }
    d.push(block, m === mib - 1);
  }
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** the cases: each builds its input, then returns the thunk whose peak is measured */
export const CASES: Record<string, () => () => Promise<unknown>> = {
  /** a USDZ whose two entries share one 1.9 MB deflate stream of 200 MiB (1.08 GB before) */
  usdz_shared_stream: () => {
    const stream = deflatedText(200);
    const size = 200 * MiB;
    const head = enc('#usda 1.0\n');
    const zip = zipOf([
      { name: 'a.usda', data: stream, method: 8, size },
      { name: 'b.usda', data: head, method: 8, size, at: 0 },
    ]);
    return () => readUsdz(zip, 'shared.usdz');
  },
  /** an MJCF file with one 50 MB attribute (1.0 GB before) */
  mjcf_attribute: () => {
    const text = `<mujoco><asset><mesh name="m" vertex="${'0 1 '.repeat((50 * MiB) / 4)}"/></asset><worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>`;
    text.indexOf('\u0001'); // flattened now, so the measure starts from the whole text
    return () => loadModelAsset('mjcf', { text, path: 'long.xml' });
  },
  /** an OBJ file with one 40 MB face line (612 MB before) */
  obj_line: () => {
    const text = `v 0 0 0\nv 1 0 0\nv 0 1 0\nf${' 1 2 3'.repeat(Math.floor((40 * MiB) / 6))}\n`;
    text.indexOf('\u0001');
    return async () => parseObj(text, 'long.obj');
  },
  /** the harness's own check: holding 300 MiB must measure as 300 MiB */
  control_300mib: () => {
    return async () => {
      const b = new Uint8Array(300 * MiB);
      for (let i = 0; i < b.length; i += 4096) b[i] = 1;
      return b.length;
    };
  },
};

function enc(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

/** the process's peak resident size [bytes], when Linux reports it */
function peakRss(): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function main(name: string): Promise<void> {
  const build = CASES[name];
  if (!build) throw new Error(`unknown case '${name}' (${Object.keys(CASES).join(', ')})`);
  const run = build();
  const base = process.memoryUsage().rss;
  let resetPeak = false;
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    resetPeak = true;
  } catch {
    // not Linux: the rss samples stand in for the peak
  }
  let sampled = base;
  const timer = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage().rss)), 2);
  let outcome: 'loaded' | 'refused' = 'loaded';
  let errName = '';
  let message = '';
  try {
    await run();
  } catch (e) {
    outcome = 'refused';
    errName = e instanceof Error ? e.name : typeof e;
    message = e instanceof Error ? e.message : String(e);
  }
  clearInterval(timer);
  sampled = Math.max(sampled, process.memoryUsage().rss);
  const hwm = resetPeak ? peakRss() : undefined;
  const peak = Math.max(sampled, hwm ?? 0) - base;
  process.stdout.write(
    `${JSON.stringify({ case: name, peak_mib: peak / MiB, outcome, name: errName, message: message.slice(0, 400) })}\n`,
  );
}

if (process.argv[1] && /bounded_input_cases\.ts$/.test(process.argv[1])) {
  main(process.argv[2] ?? '').catch((e) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
