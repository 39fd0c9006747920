/**
 * Reproduces one fuzz input: `npx tsx scripts/fuzz_repro.ts <surface> <index> [seed] [out-dir]`
 * rebuilds input #index of a surface from the seed (default: the suite's), writes its files to
 * out-dir (default /tmp/fuzz-repro) and runs the target once in this process, printing the outcome or
 * the finding with its stack.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fuzzMode } from '../engine/io/fuzz/pool';
import { Rng } from '../engine/io/fuzz/rng';
import { caseSeed } from '../engine/io/fuzz/runner';
import { SURFACES } from '../engine/io/fuzz/surfaces';

async function main(): Promise<void> {
  const [surface, index, seedArg, outArg] = process.argv.slice(2);
  const s = SURFACES[surface];
  if (!s || index === undefined) {
    console.error(`usage: fuzz_repro.ts <${Object.keys(SURFACES).join('|')}> <index> [seed] [out-dir]`);
    process.exit(2);
  }
  const seed = seedArg !== undefined ? Number(seedArg) >>> 0 : fuzzMode().seed;
  const c = s.make(new Rng(caseSeed(seed, surface, Number(index))));
  console.log(`${surface} #${index} (seed ${seed}): ${c.desc}`);
  const out = outArg ?? '/tmp/fuzz-repro';
  if (c.input.kind === 'files') {
    for (const [p, bytes] of c.input.files) {
      const f = path.join(out, p.replace(/^\/+/, '').replace(/\.\.(\/|$)/g, '__$1'));
      mkdirSync(path.dirname(f), { recursive: true });
      writeFileSync(f, bytes);
    }
    console.log(`entry ${c.input.entry}; files written under ${out}`);
  } else {
    mkdirSync(out, { recursive: true });
    const f = path.join(out, `${surface}-${index}.json`);
    writeFileSync(f, JSON.stringify(c.input, (_k, v) => (v instanceof Map ? [...v] : v), 2) ?? 'undefined');
    console.log(`input written to ${f}`);
  }
  const target =
    s.target === 'link'
      ? (await import('../app/link_fuzz_target')).runLink
      : s.target === 'command'
        ? (await import('../engine/worker/fuzz_targets')).runCommand
        : (await import('../engine/worker/fuzz_targets')).runFiles;
  try {
    console.log(await target(c.input as never));
  } catch (e) {
    console.log(e);
  }
}

void main();
