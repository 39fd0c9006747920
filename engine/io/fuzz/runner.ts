/**
 * The fuzz loop that runs inside a worker thread (`worker.mjs` → {@link runJob}): builds input i of a
 * surface from its seed, announces it (`begin`, so the pool can kill the thread when it hangs), runs
 * the target, checks the builtin prototypes, and reports the outcome (`end`).
 */
import { availableParallelism, loadavg } from 'node:os';
import { FuzzFinding, type FindingKind, type Outcome } from './finding';
import { Rng, hashString } from './rng';
import { SURFACES, type FuzzInput } from './surfaces';

export interface FuzzJob {
  surface: string;
  seed: number;
  /** first input index */
  start: number;
  /** one past the last input index */
  end: number;
  /** wall-clock end of the job (epoch ms); the loop stops starting new inputs after it */
  deadline: number;
  /** inputs before this index still start after `deadline`, until `hardDeadline` (epoch ms) */
  minEnd: number;
  hardDeadline: number;
  /** an input that takes longer than this is a finding ('slow') */
  slowMs: number;
}

export type RunnerMessage =
  | { type: 'ready'; corpus: number }
  | { type: 'begin'; i: number; desc: string }
  | {
      type: 'end';
      i: number;
      desc: string;
      ms: number;
      outcome?: Outcome;
      finding?: { kind: FindingKind; message: string };
    }
  | { type: 'done'; next: number };

type Target = (input: FuzzInput) => Promise<Outcome>;

/** where each target lives (imported lazily; the paths are relative to this file) */
const TARGETS: Record<string, [string, string]> = {
  files: ['../../worker/fuzz_targets.ts', 'runFiles'],
  command: ['../../worker/fuzz_targets.ts', 'runCommand'],
  link: ['../../../app/link_fuzz_target.ts', 'runLink'],
};

/** how many runnable tasks share each core (1-minute load average per core), at least 1 */
function busyFactor(): number {
  return Math.max(1, loadavg()[0] / availableParallelism());
}

/** the per-input seed: a function of the run seed, the surface and the index only */
export function caseSeed(seed: number, surface: string, i: number): number {
  return (Math.imul(seed ^ hashString(surface), 0x9e3779b1) + Math.imul(i + 1, 0x85ebca6b)) >>> 0;
}

const PROTOTYPES: [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
  ['Map.prototype', Map.prototype],
];

function snapshotPrototypes(): Map<string, string> {
  return new Map(PROTOTYPES.map(([n, p]) => [n, Reflect.ownKeys(p).map(String).sort().join(',')]));
}

/** the names of builtin prototypes whose own keys changed, and whether `{}` gained a `polluted` key */
function pollution(before: Map<string, string>): string | undefined {
  const probe = {} as Record<string, unknown>;
  if (probe.polluted !== undefined) return 'Object.prototype.polluted is set';
  for (const [n, p] of PROTOTYPES) {
    const now = Reflect.ownKeys(p).map(String).sort().join(',');
    if (now !== before.get(n)) return `${n} changed`;
  }
  return undefined;
}

export async function runJob(job: FuzzJob, post: (m: RunnerMessage) => void): Promise<void> {
  const surface = SURFACES[job.surface];
  if (!surface) throw new Error(`unknown fuzz surface '${job.surface}'`);
  const [mod, fn] = TARGETS[surface.target];
  const target = ((await import(/* @vite-ignore */ mod)) as Record<string, Target>)[fn];
  post({ type: 'ready', corpus: surface.corpusSize() });
  const protos = snapshotPrototypes();
  let i = job.start;
  const inTime = () => Date.now() < job.deadline || (i < job.minEnd && Date.now() < job.hardDeadline);
  for (; i < job.end && inTime(); i++) {
    const c = surface.make(new Rng(caseSeed(job.seed, job.surface, i)));
    post({ type: 'begin', i, desc: c.desc });
    const t0 = performance.now();
    let outcome: Outcome | undefined;
    let finding: { kind: FindingKind; message: string } | undefined;
    try {
      outcome = await target(c.input);
    } catch (e) {
      if (e instanceof FuzzFinding || (e instanceof Error && e.name === 'FuzzFinding')) {
        finding = { kind: (e as FuzzFinding).kind, message: e.message.slice(0, 600) };
      } else {
        const err = e instanceof Error ? e : new Error(String(e));
        const at = (err.stack ?? '').split('\n').slice(1, 4).join(' | ');
        finding = { kind: 'uncaught', message: `${err.name}: ${err.message.slice(0, 300)} ${at}` };
      }
    }
    let ms = performance.now() - t0;
    if (!finding && ms > job.slowMs) {
      // wall time includes other load on the machine: a slow input counts once it is slow twice
      const t1 = performance.now();
      try {
        await target(surface.make(new Rng(caseSeed(job.seed, job.surface, i))).input);
      } catch {
        /* judged above */
      }
      ms = Math.min(ms, performance.now() - t1);
      // the limit is for a free core: scaled by the run queue per core when the machine is busier
      const load = busyFactor();
      if (ms > job.slowMs * load)
        finding = {
          kind: 'slow',
          message: `${ms.toFixed(0)} ms (limit ${job.slowMs} ms${load > 1 ? ` × load ${load.toFixed(1)}` : ''})`,
        };
    }
    const polluted = pollution(protos);
    if (polluted) {
      finding = { kind: 'prototype_pollution', message: polluted };
      // undo, so later inputs are judged on their own
      for (const [, p] of PROTOTYPES) delete (p as Record<string, unknown>).polluted;
    }
    post({ type: 'end', i, desc: c.desc, ms, outcome, finding });
  }
  post({ type: 'done', next: i });
}
