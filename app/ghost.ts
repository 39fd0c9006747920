/**
 * The MuJoCo ghost, main-thread side: MuJoCo (its official WebAssembly build) in a Web Worker of its
 * own (engine/worker/ghost), loaded with the scene the live simulation loaded and the live time
 * step, stepped in lockstep with the live steps and drawn as a translucent copy of the bodies
 * (viewport/Ghost.tsx); ‖Δq‖ and the largest body-origin distance against MuJoCo are plotted beside
 * the trajectory ablation (plots/Plots.tsx).
 *
 * Lockstep: each live frame the viewport draws (its step and world 0's joint state, frames carry
 * them while the ghost is on) becomes one `advance`, at most one in flight; the ghost steps MuJoCo
 * to that step with the same dt, compares and sends back its body poses. Controls are mirrored as
 * the user sets them (`set_control`: PD targets, joint efforts), a reset resets them; drags pull
 * MuJoCo's body with the same spring; the scene's control sequence and hold pose are not mirrored,
 * and the status line says so when used.
 *
 * Per-frame data lives in {@link ghostFrame} and {@link ghostSeries} (mutated in place); the store
 * holds the slow status only ({@link GhostStatus}).
 */
import type { SimClient } from '../engine/worker/client';
import type { GhostReply, GhostRequest } from '../engine/worker/ghost/ghost_host';
import type { CommandBody } from '../engine/worker/protocol';
import { useStudio, type GhostStatus } from './store';

export const GHOST_OFF: GhostStatus = { phase: 'off', why: '', version: '', notMirrored: [] };

/** the ghost's latest answer; mutated in place, read in useFrame */
export const ghostFrame = {
  /** (body_count × 7) MuJoCo's body poses of world 0 (p, q xyzw; NaN: not in MuJoCo), or null */
  poses: null as Float32Array | null,
  /** answers received since the ghost was turned on */
  seq: 0,
  /** the live step the ghost is at */
  step: -1,
  /** MuJoCo steps taken since the ghost was turned on */
  steps: 0,
  /** syncs (the live state put into MuJoCo) since the ghost was turned on */
  syncs: 0,
  dq: NaN,
  dxMax: NaN,
};

/** the plotted ghost series (plain arrays, mutated in place; `version` bumps on change) */
export const ghostSeries = {
  time: [] as number[],
  /** ‖Δq‖ against MuJoCo [m, rad] (null: not positive, a gap on the log axis) */
  dq: [] as (number | null)[],
  /** the largest body-origin distance against MuJoCo [m] */
  dx: [] as (number | null)[],
  version: 0,
};
const MAX_POINTS = 4000;
const listeners = new Set<() => void>();
/** hears every change of {@link ghostSeries} */
export function onGhostSeries(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
const positive = (x: number): number | null => (x > 0 && Number.isFinite(x) ? x : null);

function clearGhostSeries(fromTime = -Infinity): void {
  let n = ghostSeries.time.findIndex((t) => t >= fromTime);
  if (n < 0) n = ghostSeries.time.length;
  ghostSeries.time.length = n;
  ghostSeries.dq.length = n;
  ghostSeries.dx.length = n;
  ghostSeries.version++;
  listeners.forEach((f) => f());
}

function pushGhostSample(time: number, dq: number, dx: number): void {
  const last = ghostSeries.time[ghostSeries.time.length - 1];
  if (last !== undefined && time <= last) clearGhostSeries(time);
  ghostSeries.time.push(time);
  ghostSeries.dq.push(positive(dq));
  ghostSeries.dx.push(positive(dx));
  if (ghostSeries.time.length > MAX_POINTS) {
    const cut = ghostSeries.time.length - MAX_POINTS;
    ghostSeries.time.splice(0, cut);
    ghostSeries.dq.splice(0, cut);
    ghostSeries.dx.splice(0, cut);
  }
  ghostSeries.version++;
  listeners.forEach((f) => f());
}

let live: SimClient | null = null;
let worker: Worker | null = null;
/** an advance is in flight (one at a time: the ghost never queues behind the live run) */
let busy = false;
let lastSeq = -1;
/** the next advance syncs first (the live state jumped: restore) */
let resyncNext = false;
/** the control commands and notes since the scene loaded or reset, replayed to a new ghost */
let replay: GhostRequest[] = [];
/** hold pose is on / the scene's control sequence plays (both outlast a reset; neither is mirrored) */
let holding = false;
let sequencePlaying = false;
/** the time step a `set_sim` set since the scene loaded [s] (undefined: the scene's) */
let dtOverride: number | undefined;

function status(): GhostStatus {
  return useStudio.getState().ghost;
}
function setStatus(patch: Partial<GhostStatus>): void {
  useStudio.getState().set({ ghost: { ...status(), ...patch } });
}

/** the live simulation the ghost follows (session.ts binds its client) */
export function bindGhost(client: SimClient): void {
  live = client;
}

function post(msg: GhostRequest): void {
  worker?.postMessage(msg);
}

function onReply(r: GhostReply): void {
  switch (r.type) {
    case 'ready':
      setStatus({ phase: 'running', why: '', version: r.version });
      for (const m of replay) post(m);
      busy = false;
      lastSeq = -1;
      break;
    case 'unfit':
    case 'error': {
      const why = r.type === 'unfit' ? r.why : r.message;
      stopWorker();
      useStudio.getState().setView({ ghost: false });
      setStatus({ phase: r.type, why });
      useStudio.getState().set({ notice: `MuJoCo ghost: ${why}` });
      break;
    }
    case 'state': {
      busy = false;
      ghostFrame.poses = r.poses;
      ghostFrame.seq++;
      ghostFrame.step = r.step;
      ghostFrame.steps += r.steps;
      if (r.synced) ghostFrame.syncs++;
      ghostFrame.dq = r.dq;
      ghostFrame.dxMax = r.dx_max;
      pushGhostSample(r.time, r.dq, r.dx_max);
      const nm = status().notMirrored;
      if (nm.join('|') !== r.not_mirrored.join('|')) setStatus({ notMirrored: r.not_mirrored });
      break;
    }
  }
}

function stopWorker(): void {
  worker?.terminate();
  worker = null;
  busy = false;
  ghostFrame.poses = null;
}

/** (re)starts the ghost on the live simulation's scene; says why when it cannot */
function startWorker(): void {
  stopWorker();
  const load = live?.lastLoad ?? null;
  const scene = useStudio.getState().scene;
  if (!live || !load || !scene) {
    setStatus({ phase: 'unfit', why: 'no scene is loaded' });
    return;
  }
  Object.assign(ghostFrame, { seq: 0, step: -1, steps: 0, syncs: 0, dq: NaN, dxMax: NaN });
  clearGhostSeries();
  setStatus({ phase: 'loading', why: '', notMirrored: [] });
  const w = new Worker(new URL('../engine/worker/ghost/ghost_worker.ts', import.meta.url), {
    type: 'module',
    name: 'sap-mujoco-ghost',
  });
  w.onmessage = (ev: MessageEvent<GhostReply>) => {
    if (worker === w) onReply(ev.data);
  };
  w.onerror = (ev) => {
    if (worker === w) onReply({ type: 'error', message: ev.message || 'the ghost worker failed to start' });
  };
  worker = w;
  const keyframe =
    typeof load.keyframe === 'string' || typeof load.keyframe === 'number' ? load.keyframe : undefined;
  post({ type: 'load', source: load.source, dt: dtOverride ?? scene.dt, keyframe });
}

/** turns the ghost on or off (the `g` shortcut and the view panel's checkbox) */
export function setGhost(on: boolean): void {
  const st = useStudio.getState();
  if (on === st.view.ghost && (on ? worker !== null : worker === null)) return;
  st.setView({ ghost: on });
  if (on) startWorker();
  else {
    stopWorker();
    setStatus({ ...GHOST_OFF });
  }
}

/**
 * sends the newest live frame to the ghost (called once per animation frame by the viewport):
 * nothing while an advance is in flight or no new frame with joint state arrived
 */
export function pumpGhost(): void {
  if (!worker || !live || busy || status().phase !== 'running') return;
  const L = live.latest;
  if (L.seq === lastSeq || !L.joints) return;
  lastSeq = L.seq;
  busy = true;
  post({ type: 'advance', step: L.step, time: L.time, q: L.joints.q, qd: L.joints.qd, resync: resyncNext });
  resyncNext = false;
}

function note(what: string): void {
  const m: GhostRequest = { type: 'note', what };
  if (!replay.some((r) => r.type === 'note' && r.what === what)) replay.push(m);
  post(m);
}

/** mirrors what a command sent to the live simulation changes (session.ts `send` calls it) */
export function mirrorCommand(cmd: CommandBody): void {
  switch (cmd.type) {
    case 'set_control': {
      // tendon and slider-crank actuators are not in the MJCF export (engine/cli/peers/mjcf_export.ts)
      if (cmd.field === 'actuator_ctrl') {
        note('actuator controls');
        break;
      }
      const m: GhostRequest = { type: 'control', field: cmd.field, dofs: cmd.dofs, values: cmd.values };
      replay.push(m);
      post(m);
      break;
    }
    case 'reset':
      replay = [];
      post({ type: 'reset_control' });
      if (holding) note('hold pose');
      if (sequencePlaying) note('the control sequence');
      break;
    case 'load_scene':
    case 'reload':
      replay = [];
      holding = false;
      dtOverride = cmd.type === 'load_scene' ? cmd.dt : undefined;
      break;
    case 'perturb':
      post({ type: 'drag', body: cmd.body, point: cmd.point, target: cmd.target, stiffness: cmd.stiffness });
      break;
    case 'hold_pose':
      holding = cmd.on;
      if (cmd.on) note('hold pose');
      break;
    case 'control_sequence':
      sequencePlaying = cmd.playing;
      if (cmd.playing) note('the control sequence');
      break;
    case 'restore':
    case 'seek':
      // the live state jumps (a seek may go forward through the history): MuJoCo takes it over
      resyncNext = true;
      break;
    case 'set_sim':
      // the live run goes on with another time step: a ghost with the new one syncs to it
      if (cmd.dt === undefined) break;
      dtOverride = cmd.dt;
      if (useStudio.getState().view.ghost) startWorker();
      break;
  }
}

// a new scene (or a reload) and a new time step restart a running ghost
useStudio.subscribe((s, prev) => {
  if (s.loads === prev.loads) return;
  // a scene with a control sequence plays it from the start: not mirrored
  sequencePlaying = s.scene?.control_sequence != null;
  if (sequencePlaying) replay.push({ type: 'note', what: 'the control sequence' });
  if (s.view.ghost) startWorker();
});

/** what the end-to-end tests read (`__sapStudio.ghost`) */
export const ghostTestApi = {
  get phase() {
    return status().phase;
  },
  get why() {
    return status().why;
  },
  get steps() {
    return ghostFrame.steps;
  },
  get answers() {
    return ghostFrame.seq;
  },
  get step() {
    return ghostFrame.step;
  },
  get dq() {
    return ghostFrame.dq;
  },
  get dxMax() {
    return ghostFrame.dxMax;
  },
  get drawn() {
    return ghostDrawn.count;
  },
  notMirrored: () => status().notMirrored.slice(),
};

/** instances the ghost drew in its last update (viewport/Ghost.tsx writes it) */
export const ghostDrawn = { count: 0 };
