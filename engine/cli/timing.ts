/**
 * Timing helpers shared by the bench's own configurations and its peers (main thread and peer
 * worker): the median of repeated rounds and the untimed warm-up rule.
 */
import { openSync, readSync } from 'node:fs';

/** the median (upper median for an even count) */
export function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
}

/**
 * The median over rounds of the per-round ratio ours[r] / peer[r] (rounds where either is missing
 * or not a positive number are left out; NaN when none is left). Both engines run in every round
 * from the same start state one right after the other, so a burst of machine load that spans a
 * round slows both and leaves that round's ratio standing, where the ratio of the two medians
 * would take each side's median from different rounds.
 */
export function pairedRatio(ours: readonly number[], peer: readonly number[]): number {
  const r = roundRatios(ours, peer);
  return r.length > 0 ? median(r) : NaN;
}

/**
 * Untimed warm-up before timing, one rule for ours and the peers: V8 compiles JS and WebAssembly
 * in tiers, a hot function reaches its optimized tier only after thousands of calls, and code that
 * first meets a new case (a contact pair type, a line-search branch) deoptimizes and compiles
 * again. So each configuration and each peer plays untimed rounds exactly like the timed ones
 * (restart from the round's start state, lead-in, the round's steps), with the stage clocks off as
 * in the timed rounds (a flag that changes after warm-up invalidates code compiled with it as a
 * constant), for at least {@link WARMUP_MS} (≥ 3 steps) and then on until it is in steady state
 * ({@link isSteady}), for at most {@link WARMUP_CAP_FACTOR} × that. (With 400 warm-up steps from the
 * first start state only and the stage clocks switched off at the first timed round, the
 * humanoid's first five timed rounds ran at 20–25k steps/s and the later ones at 30–33k.) MuJoCo's
 * WebAssembly runs its baseline (Liftoff) code for its first ~15k UR10 steps (~150 ms) before V8
 * has its optimized tier, and on a loaded machine V8's background compile threads get there later
 * still: a former cap of 5000 warm-up steps left it there in some processes and not in others, so
 * its UR10 rate came out as ~95k or ~155k steps/s from run to run (ratios 1.4 ↔ 0.85).
 */
export const WARMUP_MS = 1000;

/** the warm-up's cap, as a multiple of its minimum (`--warmup-ms`) */
export const WARMUP_CAP_FACTOR = 5;

/**
 * The warm-up's steady-state test: the time per step of each window of at least
 * {@link WARMUP_WINDOW_MS} of warm-up rounds (the median over the window's rounds, so that one
 * burst of machine load does not decide it) over the last {@link WARMUP_WINDOWS} windows, within
 * {@link WARMUP_TOLERANCE} of each other (max / min − 1).
 */
export const WARMUP_WINDOW_MS = 100;
/** consecutive warm-up windows whose time per step must agree (see {@link WARMUP_WINDOW_MS}) */
export const WARMUP_WINDOWS = 3;
/** how closely those windows must agree: max / min − 1 of their time per step */
export const WARMUP_TOLERANCE = 0.04;

/** how a warm-up went (in the bench's rows and peer rows) */
export interface WarmUpReport {
  /** untimed warm-up time [ms] */
  ms: number;
  /** warm-up steps played */
  steps: number;
  /** whether the last windows' time per step agreed within the tolerance before the cap */
  steady: boolean;
  /** max / min − 1 of the last windows' time per step (NaN with fewer windows than the test needs) */
  drift: number;
}

/**
 * the steady-state test of {@link WARMUP_WINDOWS} windows: max / min − 1 of the last `count`
 * windows' time per step (NaN when there are fewer)
 */
export function windowDrift(windows: readonly number[], count = WARMUP_WINDOWS): number {
  if (windows.length < count || count < 1) return NaN;
  const last = windows.slice(windows.length - count);
  return Math.max(...last) / Math.min(...last) - 1;
}

/** whether the last `count` windows' time per step agree within `tolerance` */
export function isSteady(
  windows: readonly number[],
  count = WARMUP_WINDOWS,
  tolerance = WARMUP_TOLERANCE,
): boolean {
  const d = windowDrift(windows, count);
  return Number.isFinite(d) && d <= tolerance;
}

/**
 * The least timed stepping per round [ms]. A fast robot's round of 100 steps takes 0.2–1 ms; a
 * round shorter than this plays its steps again from the same start state (the restart untimed)
 * until this much stepping has been timed. Short rounds, and many of them: on a loaded machine
 * (load average 5–15 on 2 cores) the scheduler runs each thread for slices of a few ms, and a
 * round of ≥ 4 ms (the former value) nearly always held a wait for the CPU on one side or the
 * other, so that the Piper's ratio read 1.89 and 0.96 in two runs. A shorter round is more often
 * clean, and a disturbed one is played again ({@link timedSegment}).
 */
export const MIN_ROUND_MS = 1;

/**
 * How often a segment that the thread was descheduled in is played again before it is counted
 * anyway, its waits subtracted (see {@link timedSegment}).
 */
export const MAX_REPLAYS = 8;

/** one timed segment: its wall-clock time and the run-queue waits of its thread within it [ms] */
export interface Span {
  ms: number;
  /** run-queue wait of the timing thread during the segment (0 where not known) */
  waited: number;
}

let schedFd: number | null | undefined;
const schedBuf = Buffer.alloc(128);

/**
 * The calling thread's total wait on the CPU run queue so far [ms]: the second field of Linux's
 * /proc/thread-self/schedstat (run_delay, ns), which grows by each wait exactly when the thread is
 * scheduled in again. NaN where the system does not provide it. Each thread (the bench's, a peer
 * worker's) opens its own file: the module is loaded once per isolate. Costs a system call (~10 µs):
 * read outside the timed span.
 */
export function runQueueWaitMs(): number {
  if (schedFd === undefined) {
    try {
      schedFd = openSync('/proc/thread-self/schedstat', 'r');
    } catch {
      schedFd = null;
    }
  }
  if (schedFd === null) return NaN;
  try {
    const n = readSync(schedFd, schedBuf, 0, schedBuf.length, 0);
    const fields = schedBuf.toString('latin1', 0, n).trim().split(/\s+/);
    const ns = Number(fields[1]);
    return Number.isFinite(ns) ? ns / 1e6 : NaN;
  } catch {
    return NaN;
  }
}

/** whether {@link runQueueWaitMs} works here (Linux with scheduler statistics) */
export function knowsRunQueueWaits(): boolean {
  return Number.isFinite(runQueueWaitMs());
}

/**
 * Times `run()` (the segment's steps, nothing else) by the wall clock and reads the thread's
 * run-queue waits around it (outside the timed span): a wait within the span means the thread was
 * descheduled while being timed, by another process or another thread of this one, and the
 * segment is then played again.
 */
export function timeSpan(run: () => void): Span {
  const w0 = runQueueWaitMs();
  const t0 = performance.now();
  run();
  const ms = performance.now() - t0;
  const waited = runQueueWaitMs() - w0;
  return { ms, waited: Number.isFinite(waited) ? waited : 0 };
}

/**
 * The longest segment that is played again when disturbed [ms]: a longer one (a pile's round of
 * tens of ms) is rarely clean on a loaded machine, and replaying it would multiply the bench's
 * time; its waits are subtracted instead, a small error against its length.
 */
export const REPLAY_MAX_MS = 5;

/**
 * The time a timed segment counts for [ms], or null to play it again: a segment of at most
 * {@link REPLAY_MAX_MS} whose thread waited for the CPU in it (more than 10 µs: two reads of the
 * wait counter cost about that) is played again up to {@link MAX_REPLAYS} times in a row
 * (`replays`: how often it was so far); a longer one, or one past the replays, is counted with the
 * waits subtracted.
 */
export function countedMs(s: Span, replays: number): number | null {
  if (s.waited <= 0.01) return s.ms;
  if (replays < MAX_REPLAYS && s.ms <= REPLAY_MAX_MS) return null;
  return Math.max(s.ms - s.waited, 1e-3);
}

/**
 * steps/s of one round: `segment()` restarts from the round's start state, times its `steps` steps
 * ({@link timeSpan}) and returns their span; played until {@link MIN_ROUND_MS} (or `minMs`) has
 * been timed, a disturbed segment again ({@link countedMs})
 */
export function segmentedRate(steps: number, segment: () => Span | number, minMs = MIN_ROUND_MS): number {
  let ms = 0,
    n = 0,
    replays = 0;
  do {
    const s = segment();
    const c = countedMs(typeof s === 'number' ? { ms: s, waited: 0 } : s, replays);
    if (c === null) {
      replays++;
      continue;
    }
    replays = 0;
    ms += c;
    n += steps;
  } while (ms < minMs);
  return n / (ms / 1000);
}

/** the steady-state test's settings ({@link warmUp}); defaults as in this module */
export interface WarmUpOptions {
  /** the cap [ms] (default {@link WARMUP_CAP_FACTOR} × the minimum) */
  maxMs?: number;
  windowMs?: number;
  windows?: number;
  tolerance?: number;
}

/**
 * plays untimed warm-up rounds: `play(r, more)` restarts from round r's start state and takes
 * the round's steps while `more()` (which counts the steps) allows. Each round is timed (its
 * restart included: a constant per round; the thread's run-queue waits subtracted, see
 * {@link runQueueWaitMs}); after `ms` it goes on until the last windows' time per step agree ({@link isSteady}) or the cap is reached, where `more()` also stops a round midway.
 */
export async function warmUp(
  ms: number,
  play: (r: number, more: () => boolean) => void | Promise<void>,
  o: WarmUpOptions = {},
): Promise<WarmUpReport> {
  const maxMs = Math.max(ms, o.maxMs ?? WARMUP_CAP_FACTOR * ms);
  const windowMs = o.windowMs ?? WARMUP_WINDOW_MS;
  const count = o.windows ?? WARMUP_WINDOWS;
  const tolerance = o.tolerance ?? WARMUP_TOLERANCE;
  const t0 = performance.now();
  let n = 0;
  let steady = false;
  const windows: number[] = [];
  let inWindow: number[] = [];
  let windowStart = t0;
  const open = (): boolean => n < 3 || performance.now() - t0 < maxMs;
  const more = (): boolean => {
    if (!open()) return false;
    n++;
    return true;
  };
  for (let r = 0; open(); r++) {
    const n0 = n;
    const w0 = runQueueWaitMs();
    const tr = performance.now();
    await play(r, more);
    const now = performance.now();
    // the round's time on the CPU: less the thread's waits for it (where known)
    const waited = runQueueWaitMs() - w0;
    const busy = Math.max(now - tr - (Number.isFinite(waited) ? waited : 0), 1e-3);
    if (n > n0) inWindow.push(busy / (n - n0));
    if (now - windowStart >= windowMs && inWindow.length > 0) {
      windows.push(median(inWindow));
      inWindow = [];
      windowStart = now;
    }
    if (n >= 3 && now - t0 >= ms && isSteady(windows, count, tolerance)) {
      steady = true;
      break;
    }
  }
  return { ms: performance.now() - t0, steps: n, steady, drift: windowDrift(windows, count) };
}

/** the median of the per-round ratios and their spread over the rounds */
export interface RatioSpread {
  /** median of the per-round ratios (as {@link pairedRatio}) */
  median: number;
  /** lower and upper quartile of the per-round ratios */
  q1: number;
  q3: number;
  min: number;
  max: number;
  /** rounds with both sides measured */
  rounds: number;
}

/** the q-quantile (0–1) of sorted values, linear between neighbours */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const x = q * (sorted.length - 1);
  const lo = Math.floor(x);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (x - lo);
}

/** the per-round ratios ours[r] / peer[r] (rounds missing or failed on either side left out) */
export function roundRatios(ours: readonly number[], peer: readonly number[]): number[] {
  const r: number[] = [];
  const n = Math.min(ours.length, peer.length);
  for (let k = 0; k < n; k++) if (ours[k] > 0 && peer[k] > 0) r.push(ours[k] / peer[k]);
  return r;
}

/** {@link pairedRatio} with the quartiles and range of the per-round ratios (NaN where none) */
export function ratioSpread(ours: readonly number[], peer: readonly number[]): RatioSpread {
  const r = roundRatios(ours, peer).sort((a, b) => a - b);
  return {
    median: r.length > 0 ? median(r) : NaN,
    q1: quantile(r, 0.25),
    q3: quantile(r, 0.75),
    min: r.length > 0 ? r[0] : NaN,
    max: r.length > 0 ? r[r.length - 1] : NaN,
    rounds: r.length,
  };
}
