/**
 * The bench's peers on one scene: MuJoCo's official WebAssembly build and Rapier, set up from our
 * scene (or, for MuJoCo, the scene's own MJCF), warmed up like our configurations, then timed
 * round by round from the same start states as ours. Runs in the bench's thread or in a peer
 * worker (peer_worker.ts), which keeps the peers' WebAssembly memories out of our isolate.
 */
import { readFileSync } from 'node:fs';
import type { LoadedSceneFile } from '../../io/load_file';
import type { SapState } from '../../state';
import type { BenchScene, PeerName, PeerRow } from '../bench_scene';
import { median, segmentedRate, timeSpan, warmUp, type WarmUpReport } from '../timing';
import { exportMjcf, setMujocoState, type MjcfExport } from './mjcf_export';
import {
  disableIslands,
  loadMujoco,
  mujocoFromXml,
  useEllipticCones,
  type MjModel,
  type MujocoModule,
} from './mujoco';
import { loadRapier, rapierContactCount, rapierUnfit, rapierWorld } from './rapier';

/** what a peer needs to run a scene like our configurations (all but `scene` structured-cloneable: a peer worker loads the scene from its file) */
export interface PeerSetup {
  /** bench scene id */
  id: string;
  spec: BenchScene;
  scene: LoadedSceneFile;
  /** the start states the rounds cycle through */
  snaps: SapState[];
  /** steps between consecutive start states */
  spacing: number;
  /** timed steps per round */
  steps: number;
  /** simulated duration of our settle [s] (MuJoCo's own settle from the MJCF) */
  duration: number;
  /** initial PD targets (sinusoid scenes) */
  q0: Float64Array;
  /** driven DOFs (sinusoid scenes) */
  driven: number[];
  /** least untimed warm-up [ms] (see WARMUP_MS) */
  warmupMs: number;
  /** the warm-up's cap [ms] (default WARMUP_CAP_FACTOR × warmupMs) */
  warmupMaxMs?: number;
}

/** a peer set up, warmed up and ready to be timed in rounds beside our configurations */
export interface PeerRunner {
  peer: PeerName;
  rates: number[];
  failed: boolean;
  /**
   * restarts from the peer's start state `r` (mod their count) and times `steps` steps, again until
   * MIN_ROUND_MS is timed (timing.ts); steps/s
   */
  round(r: number): number;
  /** the peer's row from the rounds so far (median steps/s) */
  result(): PeerRow;
  dispose(): void;
}

/** the bench's MuJoCo peers: as it ships, with its island discovery off, with elliptic cones */
export type MujocoPeer = 'mujoco' | 'mujoco_whole' | 'mujoco_elliptic';

/** each MuJoCo peer's switch on a loaded model (null: it runs, or why it cannot) and version suffix */
const MUJOCO_PEERS: Record<
  MujocoPeer,
  { apply: (mj: MujocoModule, m: MjModel) => string | null; label: string }
> = {
  mujoco: { apply: () => null, label: '' },
  mujoco_whole: { apply: disableIslands, label: ', island discovery off' },
  mujoco_elliptic: { apply: useEllipticCones, label: ', elliptic cones' },
};

/**
 * sets up, warms up and returns MuJoCo on a scene, or why it cannot run it: as it ships (`mujoco`),
 * with its island discovery off (`mujoco_whole`) or with elliptic friction cones (`mujoco_elliptic`)
 */
export async function startMujoco(
  setup: PeerSetup,
  peer: MujocoPeer = 'mujoco',
): Promise<PeerRunner | string> {
  const { id, spec, scene, snaps, spacing, steps, duration, q0, driven, warmupMs, warmupMaxMs } = setup;
  const snap = snaps[0];
  const mj: MujocoModule | string = await loadMujoco();
  if (typeof mj === 'string') return mj;
  const dt = scene.dt;
  let start: string;
  let actuatorDof: number[] = [];
  let exp: MjcfExport | null = null;
  if (!spec.mjcf) {
    exp = exportMjcf(scene.model, dt, id);
    actuatorDof = exp.actuatorDof;
  }
  const { m, d } = mujocoFromXml(mj, exp ? exp.xml : readFileSync(spec.mjcf!, 'utf8'));
  const why = MUJOCO_PEERS[peer].apply(mj, m);
  if (why) {
    d.delete();
    m.delete();
    return why;
  }
  if (!exp) {
    m.opt.timestep = dt;
    const n = Math.round(duration / dt);
    for (let i = 0; i < n; i++) mj.mj_step(m, d);
    start = `own ${n}-step settle from the MJCF (same duration)`;
  } else {
    setMujocoState(scene.model, snap, exp, m, d);
    mj.mj_forward(m, d);
    start = 'our settled state (exported MJCF)';
  }
  const ctrlAt = (t: number): void => {
    if (!spec.sinusoid || actuatorDof.length === 0) return;
    const s = spec.sinusoid.amplitude * Math.sin(2 * Math.PI * spec.sinusoid.hz * t);
    const ctrl = d.ctrl;
    for (let k = 0; k < actuatorDof.length; k++)
      ctrl[k] = q0[actuatorDof[k]] + (driven.includes(actuatorDof[k]) ? s : 0);
  };
  let t = snap.time;
  const step = (): void => {
    ctrlAt(t);
    mj.mj_step(m, d);
    t += dt;
  };
  // the start states every round restarts from (as ours restart from their snapshots)
  let warm: WarmUpReport | undefined;
  const saved: {
    qpos: Float64Array;
    qvel: Float64Array;
    act: Float64Array;
    warm: Float64Array;
    time: number;
    t: number;
  }[] = [];
  const save = (): void => {
    saved.push({
      qpos: Float64Array.from(d.qpos),
      qvel: Float64Array.from(d.qvel),
      act: Float64Array.from(d.act),
      warm: Float64Array.from(d.qacc_warmstart),
      time: d.time,
      t,
    });
  };
  const restore = (sv: (typeof saved)[number]): void => {
    d.qpos.set(sv.qpos);
    d.qvel.set(sv.qvel);
    d.act.set(sv.act);
    d.qacc_warmstart.set(sv.warm);
    d.time = sv.time;
    t = sv.t;
  };
  try {
    if (exp) {
      const lead = spec.lead_in ?? 0;
      for (const sn of snaps) {
        setMujocoState(scene.model, sn, exp, m, d);
        mj.mj_forward(m, d);
        t = sn.time;
        for (let i = 0; i < lead; i++) step();
        save();
      }
      if (lead > 0) start += ` + ${lead} untimed steps (as ours; its own contact set)`;
    } else {
      // its own run: the later start states `spacing` steps apart, like ours
      save();
      for (let k = 1; k < snaps.length; k++) {
        for (let i = 0; i < spacing; i++) step();
        save();
      }
    }
    // untimed warm-up rounds (wasm tier-up, until steady; see WARMUP_MS), like the timed ones
    warm = await warmUp(
      warmupMs,
      (r, more) => {
        restore(saved[r % saved.length]);
        for (let i = 0; i < steps && more(); i++) step();
      },
      { maxMs: warmupMaxMs },
    );
  } catch (e) {
    d.delete();
    m.delete();
    throw e;
  }
  const warmup = warm!;
  const arrangements = spec.arrangements ?? 1;
  start +=
    arrangements > 1
      ? `, rounds cycling through ${snaps.length} start states (${arrangements} arrangements of ${snaps.length / arrangements} states ${spacing} steps apart)`
      : snaps.length > 1
        ? `, rounds cycling through ${snaps.length} start states ${spacing} steps apart`
        : ', every round from there';
  let iters = 0,
    islands = 0,
    n = 0,
    contacts = 0;
  const runner: PeerRunner = {
    peer,
    rates: [],
    failed: false,
    round: (r) => {
      const rate = segmentedRate(steps, () => {
        restore(saved[r % saved.length]);
        return timeSpan(() => {
          for (let i = 0; i < steps; i++) step();
        });
      });
      // the statistics from an untimed replay of the first round from each start state (the same
      // steps: MuJoCo is deterministic): reading them through the bindings (a typed-array view per
      // access) inside the timed loop cost MuJoCo's humanoid ~4%
      if (r < saved.length) {
        restore(saved[r]);
        for (let i = 0; i < steps; i++) {
          step();
          // islands (MuJoCo's default since 3.3.6) are solved one by one: count the most
          // iterations any island took; solver_niter holds the first islands
          const ni = Math.min(Math.max(1, d.nisland), d.solver_niter.length);
          let most = 0;
          for (let k = 0; k < ni; k++) most = Math.max(most, d.solver_niter[k]);
          iters += most;
          islands += d.nisland;
          contacts += d.ncon;
          n++;
        }
      }
      return rate;
    },
    result: () => {
      const sps = median(runner.rates);
      return {
        scene: id,
        peer,
        version: `MuJoCo ${mj.mj_versionString()} (@mujoco/mujoco wasm)${MUJOCO_PEERS[peer].label}`,
        dt,
        steps_per_s: sps,
        real_time_factor: sps * dt,
        contacts: Math.round(contacts / Math.max(1, n)),
        iterations_mean: iters / Math.max(1, n),
        ...(peer === 'mujoco_whole' ? {} : { islands_mean: islands / Math.max(1, n) }),
        start,
        warmup,
      };
    },
    dispose: () => {
      d.delete();
      m.delete();
    },
  };
  return runner;
}

/** sets up, warms up and returns Rapier on a scene, or why it cannot run it */
export async function startRapier(setup: PeerSetup): Promise<PeerRunner | string> {
  const { id, scene, snaps, steps, warmupMs, warmupMaxMs } = setup;
  const leadIn = setup.spec.lead_in ?? 0;
  const unfit = rapierUnfit(scene.model);
  if (unfit) return `the scene does not fit Rapier's model (${unfit})`;
  const R = await loadRapier();
  if (typeof R === 'string') return R;
  const lead = Math.max(3, leadIn);
  // every round builds the world afresh from the snapshot and takes the lead-in steps (untimed)
  let world: ReturnType<typeof rapierWorld>['world'] | null = null;
  let colliders: ReturnType<typeof rapierWorld>['colliders'] | null = null;
  const fresh = (r: number): NonNullable<typeof world> => {
    world?.free();
    ({ world, colliders } = rapierWorld(R, scene.model, snaps[r % snaps.length], scene.dt));
    for (let i = 0; i < lead; i++) world.step();
    return world;
  };
  // untimed warm-up rounds (wasm tier-up, until steady; see WARMUP_MS), like the timed ones
  const warmup = await warmUp(
    warmupMs,
    (r, more) => {
      const w = fresh(r);
      for (let i = 0; i < steps && more(); i++) w.step();
    },
    { maxMs: warmupMaxMs },
  );
  const runner: PeerRunner = {
    peer: 'rapier',
    rates: [],
    failed: false,
    round: (r) =>
      segmentedRate(steps, () => {
        const world = fresh(r);
        return timeSpan(() => {
          for (let i = 0; i < steps; i++) world.step();
        });
      }),
    result: () => {
      const sps = median(runner.rates);
      return {
        scene: id,
        peer: 'rapier',
        version: `Rapier ${R.version()} (@dimforge/rapier3d-compat)`,
        dt: scene.dt,
        steps_per_s: sps,
        real_time_factor: sps * scene.dt,
        contacts: rapierContactCount(world!, colliders!),
        start:
          snaps.length > 1
            ? `our ${snaps.length} start states (same bodies, sleeping off) + ${lead} untimed steps, rounds cycling through them`
            : `our settled state (same bodies, sleeping off) + ${lead} untimed steps, every round from there`,
        warmup,
      };
    },
    dispose: () => world?.free(),
  };
  return runner;
}
