/**
 * The fuzz pool: runs a surface's inputs in a worker thread with a heap limit and a small stack (as a
 * browser worker has), watches every input, and kills and restarts the thread when an input does not
 * finish within `hangMs` (a hang) or the thread dies (a crash, out of memory). Each input is reported
 * by index and description, so a finding is reproduced from (seed, surface, index) alone.
 *
 * Modes: quick (the default, part of `npm test`) and long (`FUZZ_LONG=1`); `FUZZ_SEED` changes the
 * run seed, `FUZZ_COUNT` the number of inputs per surface, `FUZZ_SURFACES=a,b` restricts the surfaces.
 */
import { Worker } from 'node:worker_threads';
import type { FindingKind, Outcome } from './finding';
import type { FuzzJob, RunnerMessage } from './runner';

export interface FuzzOptions {
  /** inputs to run */
  count: number;
  seed: number;
  /** wall-clock budget of the whole surface [ms]; fewer inputs run when it is spent */
  budgetMs: number;
  /**
   * inputs that run even past the budget (a busy machine runs fewer per second), up to four times
   * the budget (default 0)
   */
  minInputs?: number;
  /** an input slower than this is a finding [ms] (SPEC: 2 s) */
  slowMs?: number;
  /** an input still running after this is killed and reported as a hang [ms] */
  hangMs?: number;
  /** heap limit of the fuzz thread [MiB] */
  memoryMb?: number;
  /** stack limit of the fuzz thread [MiB] */
  stackMb?: number;
}

export interface FoundInput {
  i: number;
  desc: string;
  kind: FindingKind;
  message: string;
}

export interface SurfaceReport {
  surface: string;
  seed: number;
  corpus: number;
  inputs: number;
  loaded: number;
  rejected: number;
  /** rejections by the location kind their error carries */
  where: Record<string, number>;
  findings: FoundInput[];
  maxMs: number;
  meanMs: number;
  slowest: string;
  wallMs: number;
  /** the most frequent rejection reasons (message prefixes) */
  reasons: [string, number][];
  /** rejections located by file only (whole-file problems), a few examples */
  fileOnly: string[];
}

const ENTRY = new URL('./worker.mjs', import.meta.url);

export function fuzzMode(): { long: boolean; seed: number; count?: number; surfaces?: string[] } {
  const env = process.env;
  return {
    long: env.FUZZ_LONG === '1' || env.FUZZ_LONG === 'true',
    seed: env.FUZZ_SEED ? Number(env.FUZZ_SEED) >>> 0 : 20260822,
    count: env.FUZZ_COUNT ? Number(env.FUZZ_COUNT) : undefined,
    surfaces: env.FUZZ_SURFACES ? env.FUZZ_SURFACES.split(',').map((s) => s.trim()) : undefined,
  };
}

/** runs `opts.count` inputs of one surface and reports what happened */
export async function fuzzSurface(surface: string, opts: FuzzOptions): Promise<SurfaceReport> {
  const t0 = Date.now();
  const deadline = t0 + opts.budgetMs;
  const minEnd = Math.min(opts.count, opts.minInputs ?? 0);
  const hardDeadline = t0 + 4 * opts.budgetMs;
  const inTime = (i: number) => Date.now() < deadline || (i < minEnd && Date.now() < hardDeadline);
  const hangMs = opts.hangMs ?? 10_000;
  const report: SurfaceReport = {
    surface,
    seed: opts.seed,
    corpus: 0,
    inputs: 0,
    loaded: 0,
    rejected: 0,
    where: {},
    findings: [],
    maxMs: 0,
    meanMs: 0,
    slowest: '',
    wallMs: 0,
    reasons: [],
    fileOnly: [],
  };
  const reasons = new Map<string, number>();
  let totalMs = 0;
  let next = 0;

  const record = (m: Extract<RunnerMessage, { type: 'end' }>) => {
    report.inputs++;
    totalMs += m.ms;
    if (m.ms > report.maxMs) {
      report.maxMs = m.ms;
      report.slowest = `#${m.i} ${m.desc}`;
    }
    if (m.finding) report.findings.push({ i: m.i, desc: m.desc, ...m.finding });
    const o: Outcome | undefined = m.outcome;
    if (o?.result === 'loaded') report.loaded++;
    else if (o?.result === 'rejected') {
      report.rejected++;
      const w = o.where ?? 'none';
      report.where[w] = (report.where[w] ?? 0) + 1;
      if (w === 'file' && report.fileOnly.length < 20) report.fileOnly.push(`#${m.i} ${o.message ?? ''}`);
      const key = `[${w}] ${o.error}: ${(o.message ?? '')
        .replace(/^[^:]*\.(ya?ml|json|urdf|xml|usd[acz]?|stl|obj)(:\d+(:\d+)?)?(@\d+)?:\s*/i, '')
        .replace(/\d+/g, 'N')
        .slice(0, 90)}`;
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
    }
  };

  // one worker per stretch of inputs; a hang or a crash ends the stretch and the next one resumes after it
  while (next < opts.count && inTime(next)) {
    const job: FuzzJob = {
      surface,
      seed: opts.seed,
      start: next,
      end: opts.count,
      deadline,
      minEnd,
      hardDeadline,
      slowMs: opts.slowMs ?? 2000,
    };
    const result = await new Promise<{ next: number }>((resolve) => {
      const w = new Worker(ENTRY, {
        workerData: job,
        resourceLimits: { maxOldGenerationSizeMb: opts.memoryMb ?? 1024, stackSizeMb: opts.stackMb ?? 1 },
        stdout: false,
        stderr: false,
      });
      let current: { i: number; desc: string } | null = null;
      let lastEnded = -1;
      let ready = false;
      let timer: ReturnType<typeof setTimeout> | null = null;
      let settled = false;
      const finish = (n: number) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        void w.terminate();
        resolve({ next: n });
      };
      const lose = (kind: FindingKind, message: string) => {
        if (current) {
          report.inputs++;
          report.findings.push({ i: current.i, desc: current.desc, kind, message });
          finish(current.i + 1);
        } else if (ready) {
          // building input lastEnded + 1 failed (a harness fault): report it and go on after it
          const i = Math.max(lastEnded, job.start - 1) + 1;
          report.findings.push({ i, desc: '(while building the input)', kind, message });
          finish(i + 1);
        } else {
          report.findings.push({ i: next, desc: '(starting the fuzz thread)', kind, message });
          finish(opts.count); // the surface cannot run at all: stop
        }
      };
      w.on('message', (m: RunnerMessage) => {
        if (m.type === 'ready') {
          report.corpus = m.corpus;
          ready = true;
        } else if (m.type === 'begin') {
          current = { i: m.i, desc: m.desc };
          if (timer) clearTimeout(timer);
          timer = setTimeout(() => lose('hang', `no result after ${hangMs} ms; thread killed`), hangMs);
        } else if (m.type === 'end') {
          if (timer) clearTimeout(timer);
          current = null;
          lastEnded = m.i;
          record(m);
        } else if (m.type === 'done') finish(m.next);
      });
      w.on('error', (e: Error & { code?: string }) => lose('crash', `${e.code ?? e.name}: ${e.message}`));
      w.on('exit', (code) => {
        if (!settled) lose('crash', `fuzz thread exited with code ${code}`);
      });
    });
    next = result.next;
  }
  report.meanMs = report.inputs ? totalMs / report.inputs : 0;
  report.wallMs = Date.now() - t0;
  report.reasons = [...reasons.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40);
  return report;
}

/** one line per surface for logs and notes */
export function formatReport(r: SurfaceReport): string {
  const where = Object.entries(r.where)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return (
    `${r.surface}: ${r.inputs} inputs (corpus ${r.corpus}, seed ${r.seed}) → ${r.loaded} loaded, ${r.rejected} typed errors` +
    ` [${where}], ${r.findings.length} findings; mean ${r.meanMs.toFixed(1)} ms, max ${r.maxMs.toFixed(0)} ms (${r.slowest.slice(0, 80)}); ${(r.wallMs / 1000).toFixed(1)} s`
  );
}
