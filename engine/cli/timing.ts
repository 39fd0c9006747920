/**
 * Timing helpers shared by the bench's own configurations and its peers (main thread and peer
 * worker): the median of repeated rounds and the untimed warm-up rule.
 */

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
  const r: number[] = [];
  const n = Math.min(ours.length, peer.length);
  for (let k = 0; k < n; k++) if (ours[k] > 0 && peer[k] > 0) r.push(ours[k] / peer[k]);
  return r.length > 0 ? median(r) : NaN;
}

/**
 * Untimed warm-up before timing, one rule for ours and the peers: V8 compiles JS and WebAssembly
 * in tiers, a hot function reaches its optimized tier only after thousands of calls, and code that
 * first meets a new case (a contact pair type, a line-search branch) deoptimizes and compiles
 * again. So each configuration and each peer plays untimed rounds exactly like the timed ones
 * (restart from the round's start state, lead-in, the round's steps) for {@link WARMUP_MS} (≥ 3
 * steps), with the stage clocks off as in the timed rounds (a flag that changes after warm-up
 * invalidates code compiled with it as a constant). (With 400 warm-up steps from the first start
 * state only and the stage clocks switched off at the first timed round, the humanoid's first five
 * timed rounds ran at 20–25k steps/s and the later ones at 30–33k.) The warm-up is bounded by time
 * only: MuJoCo's WebAssembly runs its baseline (Liftoff) code for its first ~15k UR10 steps
 * (~150 ms) before V8 has its optimized tier; a former cap of 5000 warm-up steps left it there in
 * some processes and not in others, so its UR10 rate came out as ~95k or ~155k steps/s from run to
 * run (ratios 1.4 ↔ 0.85).
 */
export const WARMUP_MS = 1000;

/**
 * The least timed stepping per round [ms]. A fast robot's round of 100 steps takes 0.2–1 ms, so
 * 41 such rounds of ours and of a peer fit inside one 10–20 ms burst of machine load or of a
 * background thread (a V8 compile job, a GC): a whole run's cartpole read 425k steps/s against
 * 600k, a multi_joints MuJoCo 44k against 61k. A round shorter than this plays its steps again from
 * the same start state (the restart untimed) until this much stepping has been timed, so that such
 * a burst falls inside a few rounds and the median passes it by.
 */
export const MIN_ROUND_MS = 4;

/**
 * steps/s of one round: `segment()` restarts from the round's start state, times its `steps` steps
 * and returns their elapsed ms; played until {@link MIN_ROUND_MS} (or `minMs`) has been timed
 */
export function segmentedRate(steps: number, segment: () => number, minMs = MIN_ROUND_MS): number {
  let ms = 0,
    n = 0;
  do {
    ms += segment();
    n += steps;
  } while (ms < minMs);
  return n / (ms / 1000);
}

/**
 * plays untimed warm-up rounds: `play(r, more)` restarts from round r's start state and takes
 * the round's steps while `more()` (which counts the steps) allows
 */
export async function warmUp(
  ms: number,
  play: (r: number, more: () => boolean) => void | Promise<void>,
): Promise<void> {
  const t0 = performance.now();
  let n = 0;
  const open = (): boolean => n < 3 || performance.now() - t0 < ms;
  const more = (): boolean => {
    if (!open()) return false;
    n++;
    return true;
  };
  for (let r = 0; open(); r++) await play(r, more);
}
