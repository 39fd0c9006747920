/**
 * `npm run bench`: steps/s of scenes × presets × line searches on the CPU backend (SPEC §10).
 * Warms up first (JS tiers up), then reports the median of repeated timed runs, the real-time
 * factor, mean Newton and line-search iterations and contacts per world. Writes JSON and a
 * markdown table under bench-results/. Peers (MuJoCo WebAssembly, Rapier) join with the
 * performance issue.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadModelFile } from '../io/load_file';
import { Simulation } from '../pipeline';

export interface BenchRow {
  scene: string;
  preset: string;
  line_search: string;
  backend: 'cpu';
  num_worlds: number;
  dt: number;
  steps_per_s: number;
  real_time_factor: number;
  newton_iterations_mean: number;
  line_search_iterations_mean: number;
  contacts_per_world: number;
}

export interface BenchOptions {
  scenes: string[];
  presets: string[];
  line_searches: string[];
  /** timed steps per repeat */
  steps: number;
  repeats: number;
  warmup: number;
}

export async function runBench(o: BenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const file of o.scenes) {
    const scene = await loadModelFile(file);
    for (const preset of o.presets) {
      for (const ls of o.line_searches) {
        const solver = { ...scene.solver, contact_preset_variant: preset, line_search_variant: ls };
        const sim = new Simulation(scene.model, {
          dt: scene.dt,
          solver,
          max_rigid_contact: scene.max_rigid_contact,
        });
        for (let i = 0; i < o.warmup; i++) sim.step();
        const rates: number[] = [];
        let it = 0,
          lsIt = 0,
          contacts = 0,
          n = 0;
        for (let r = 0; r < o.repeats; r++) {
          const t0 = performance.now();
          for (let i = 0; i < o.steps; i++) {
            const rep = sim.step();
            it += rep.iterations_mean;
            lsIt += rep.line_search_iterations / scene.model.num_worlds;
            contacts += rep.contact_count / scene.model.num_worlds;
            n++;
          }
          rates.push(o.steps / ((performance.now() - t0) / 1000));
        }
        rates.sort((a, b) => a - b);
        const median = rates[Math.floor(rates.length / 2)];
        rows.push({
          scene: scene.name,
          preset,
          line_search: ls,
          backend: 'cpu',
          num_worlds: scene.model.num_worlds,
          dt: scene.dt,
          steps_per_s: median,
          real_time_factor: median * scene.dt,
          newton_iterations_mean: it / n,
          line_search_iterations_mean: lsIt / n,
          contacts_per_world: contacts / n,
        });
      }
    }
  }
  return rows;
}

export function benchMarkdown(rows: BenchRow[]): string {
  const head =
    '| scene | preset | line search | backend | worlds | dt [s] | steps/s | real-time × | Newton it. | LS it. | contacts/world |\n' +
    '|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|';
  const body = rows.map(
    (r) =>
      `| ${r.scene} | ${r.preset} | ${r.line_search} | ${r.backend} | ${r.num_worlds} | ${r.dt} | ${r.steps_per_s.toFixed(0)} | ${r.real_time_factor.toFixed(2)} | ${r.newton_iterations_mean.toFixed(2)} | ${r.line_search_iterations_mean.toFixed(2)} | ${r.contacts_per_world.toFixed(1)} |`,
  );
  return [head, ...body].join('\n');
}

export function writeBenchResults(rows: BenchRow[], dir = 'bench-results'): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'bench.json');
  const md = path.join(dir, 'bench.md');
  writeFileSync(
    json,
    JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2),
  );
  writeFileSync(md, benchMarkdown(rows) + '\n');
  return { json, md };
}
