/**
 * The bench's data types that its peers share: the peer names, a benchmark scene, a peer's row.
 * (Beside bench.ts, so that `peers/` need not import the bench that imports them.)
 */
import type { PileGrid } from './pile';
import type { WarmUpReport } from './timing';

/**
 * The peers: MuJoCo as it ships (islands on since 3.3.6; pyramidal friction cones), MuJoCo with
 * island discovery off (`mujoco_whole`: one constraint solve per world, like SAP and ours with
 * solve_islands off), MuJoCo with elliptic friction cones (`mujoco_elliptic`: the Coulomb cone SAP
 * solves, where the default pyramid linearizes it), Rapier
 */
export type PeerName = 'mujoco' | 'mujoco_whole' | 'mujoco_elliptic' | 'rapier';

/** every peer, in table order */
export const PEER_NAMES: readonly PeerName[] = ['mujoco', 'mujoco_whole', 'mujoco_elliptic', 'rapier'];

/** a benchmark scene: the file and how it is measured */
export interface BenchScene {
  /** scene file (YAML scene, MJCF, URDF, USD), relative to the repository root */
  file: string;
  /** simulated steps before the snapshot the measurements start from */
  settle: number;
  /** timed steps per repeat */
  steps: number;
  repeats: number;
  /** line searches measured when --line-search is not given; `scene` is the scene file's own */
  line_searches: string[];
  /** solve_islands values measured when --islands is not given (default [false]) */
  islands?: boolean[];
  /** solver-option variants measured when --variant is not given (default [{}]: none) */
  variants?: Record<string, unknown>[];
  peers: PeerName[];
  /** root of git-backed scene assets (SAP Warp example scenes) */
  asset_root?: string;
  /** load leniently: features the engine does not model are skipped and listed in the notes */
  lenient?: boolean;
  /** MJCF: the `<key>` whose qpos and ctrl start the settle run (a Menagerie robot's 'home') */
  keyframe?: string;
  /**
   * a generated box pile: `file` is written from this grid ({@link pileSceneYaml}) before the scene
   * loads (the contact-scaling series)
   */
  pile?: PileGrid;
  /** the MuJoCo peer loads this MJCF directly instead of an export of our model */
  mjcf?: string;
  /** PD targets follow q₀ + a·sin(2πft) on every driven DOF (ours: control, MuJoCo: ctrl) */
  sinusoid?: { amplitude: number; hz: number };
  /**
   * untimed steps that every engine (ours and the peers) takes from the snapshot before it is
   * timed (default 0), so that all are timed over the same simulated interval. Contacts are
   * compliant in both engines but MuJoCo's soft constraints rest deeper than our SAP contacts, so
   * from our state MuJoCo's contact set builds up over its first steps (pile_1000: 239 → 1174
   * contacts in 8 steps); timing that ramp would flatter the peer.
   */
  lead_in?: number;
  /**
   * start states the rounds cycle through (default 1): the snapshot, then one every
   * `snapshot_spacing` further steps of the same settle run. A contact-rich scene's Newton count
   * depends on the exact state (a bit-level change moves a pile's mean iterations over 60 steps by
   * up to 50%), so timing every engine from several states, round by round, keeps one lucky or
   * unlucky state from deciding the ratio.
   */
  snapshots?: number;
  /** steps between consecutive start states (default: `steps`) */
  snapshot_spacing?: number;
  /**
   * independent settles (default 1), each with its own `snapshots` start states. Arrangement 0
   * drops the scene as authored; arrangement k > 0 first turns every free body about the vertical
   * by a seeded angle of at most 2° and shifts it horizontally by at most 1 mm
   * ({@link jitterFreeBodies}), so that the pile settles into another arrangement. A settled pile's
   * Newton count is a property of its arrangement (one bit-level change anywhere moves a pile's
   * mean iterations by tens of percent), so timing several arrangements keeps one from deciding
   * the ratio; every engine is timed from the same states.
   */
  arrangements?: number;
}

export interface PeerRow {
  scene: string;
  peer: PeerName;
  version: string;
  dt: number;
  steps_per_s: number;
  real_time_factor: number;
  contacts: number;
  /** solver iterations per step where the peer reports them (MuJoCo: its most in any island) */
  iterations_mean?: number;
  /** constraint islands per step where the peer reports them (MuJoCo) */
  islands_mean?: number;
  /** how the peer's start state was obtained */
  start: string;
  /** where it ran: a worker thread of its own ({@link BenchOptions.peer_worker}) or the bench's thread */
  thread?: 'worker' | 'bench';
  /** how its untimed warm-up went: time, steps, whether it reached steady state before the cap */
  warmup?: WarmUpReport;
}
