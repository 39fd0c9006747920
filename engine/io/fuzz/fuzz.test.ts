/**
 * Fuzzing of every input surface (SPEC §11): scene YAML/JSON, URDF, MJCF, USDA, USDC, USDZ, STL, OBJ, COLLADA,
 * share links and worker protocol messages. Each input must end in a loaded model or a typed error
 * with a location, within 2 s, without crashing or exhausting the fuzz thread's heap, and without
 * touching Object.prototype. Deterministic: inputs derive from (seed, surface, index).
 *
 * Quick mode (default, part of `npm test`): a few hundred inputs per surface within a time budget.
 * Long mode: `FUZZ_LONG=1 npx vitest run engine/io/fuzz` (20× the inputs); `FUZZ_SEED=n` for another
 * seed, `FUZZ_COUNT=n` for n inputs per surface, `FUZZ_SURFACES=usdc,stl` for some surfaces only,
 * `FUZZ_REPORT=file.json` to write the reports.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatReport, fuzzMode, fuzzSurface, type SurfaceReport } from './pool';
import { SURFACES } from './surfaces';

const mode = fuzzMode();

/** quick-mode inputs per surface (their cost differs: protocol messages step a simulation) */
const QUICK: Record<string, number> = {
  scene_yaml: 500,
  scene_json: 800,
  urdf: 800,
  mjcf: 800,
  usda: 1000,
  usdc: 2000,
  usdz: 800,
  stl: 1500,
  obj: 800,
  dae: 600,
  link: 3000,
  protocol: 1500,
};
const QUICK_BUDGET_MS = 15_000;
const LONG_FACTOR = 20;

const reports: SurfaceReport[] = [];

describe('fuzz: every input ends in a model or a located typed error', () => {
  for (const name of Object.keys(SURFACES)) {
    if (mode.surfaces && !mode.surfaces.includes(name)) continue;
    const count = mode.count ?? (mode.long ? QUICK[name] * LONG_FACTOR : QUICK[name]);
    const budgetMs = mode.long ? QUICK_BUDGET_MS * LONG_FACTOR : QUICK_BUDGET_MS;
    it(
      name,
      async () => {
        const minInputs = Math.min(count, 100);
        const r = await fuzzSurface(name, { count, seed: mode.seed, budgetMs, minInputs });
        reports.push(r);
        console.log(formatReport(r));
        for (const f of r.findings.slice(0, 10)) console.log(`  ${f.kind} #${f.i} ${f.desc}: ${f.message}`);
        if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, JSON.stringify(reports, null, 2));
        expect(r.findings.map((f) => `${f.kind} #${f.i} ${f.desc}: ${f.message}`)).toEqual([]);
        // the budget guards the suite's time; a quick run still covers a meaningful number of inputs
        expect(r.inputs).toBeGreaterThanOrEqual(minInputs);
      },
      4 * budgetMs + 60_000,
    );
  }
});
