/**
 * Slow UI state (zustand): the loaded scene's description, solver options, play state, throttled
 * stats, selection, view toggles and messages. Per-frame data (poses, contacts) never goes here: the
 * viewport reads it from the worker client in `useFrame` (layout principle 13).
 */
import { create } from 'zustand';
import type {
  BackendChoice,
  BackendInfo,
  ErrorInfo,
  OptionsInfo,
  SceneInfo,
  StatsInfo,
} from '../engine/worker/protocol';
import type { Candidate, SetAside } from './candidates';
import type { LinkState } from './link';

/** where the current scene came from, for links and the scene panel */
export type SceneRef =
  | { kind: 'catalog'; id: string }
  | { kind: 'url'; url: string }
  | { kind: 'inline'; name: string; text: string }
  | { kind: 'files'; name: string; count: number };

/** a contact's numbers, copied when the user clicks it */
export interface ContactDetail {
  index: number;
  values: Record<string, number>;
  x0: number[];
  x1: number[];
  /** simulation time of these values [s] */
  time: number;
  /** when the followed contact stopped touching [s] (the values are its last ones) */
  goneAt?: number;
}

export interface ViewState {
  visual: boolean;
  collision: boolean;
  overlay: boolean;
  normals: boolean;
  forces: boolean;
  /** force arrow length per newton [m/N] */
  force_scale: number;
  shadows: boolean;
  /** colour bodies by their constraint island (CPU backend) */
  islands: boolean;
  /** the camera follows the selected body (the first body when none is selected) */
  follow: boolean;
  /** MuJoCo runs beside the live simulation, drawn as a translucent ghost (app/ghost.ts) */
  ghost: boolean;
}

/** a load under way: reading the dropped files here, or a phase in the worker */
export interface LoadStatus {
  /** what is loaded (the entry file, or the drop while its files are read) */
  name: string;
  /** 'read' (the dropped files, in the page), or a worker phase (LoadPhase) */
  phase: string;
  done: number;
  total: number;
  /** the file just read */
  file?: string;
  /** performance.now() when the load began [ms] */
  since: number;
}

/** a drop that holds several models: the user picks one */
export interface DropChoice {
  /** the dropped files (count) and what they came as */
  count: number;
  candidates: Candidate[];
  setAside: SetAside[];
  /** the chooser is shown (closed: a button reopens it while the drop is kept) */
  open: boolean;
}

/** the MuJoCo ghost's slow state (app/ghost.ts) */
export interface GhostStatus {
  /** off, loading (MuJoCo and the scene), running, or unfit / error (then `why`) */
  phase: 'off' | 'loading' | 'running' | 'unfit' | 'error';
  why: string;
  /** MuJoCo's version string */
  version: string;
  /** what the user did that the ghost does not mirror */
  notMirrored: string[];
}

export interface StudioState {
  scene: SceneInfo | null;
  sceneRef: SceneRef | null;
  /** ready events received (a reload or new load increments it) */
  loads: number;
  options: OptionsInfo | null;
  playing: boolean;
  speed: number;
  num_worlds: number;
  stats: StatsInfo | null;
  /** trajectory-mode ablation is running (shadow simulations beside the live one) */
  trajectory: boolean;
  /** the backend the user chose (links carry it) */
  backendChoice: BackendChoice;
  /** what the worker reports: requested and active backend, fallback reason, adapter, precision */
  backend: BackendInfo | null;
  errors: ErrorInfo[];
  notice: string;
  /** a load under way (progress, cancel), or null */
  loading: LoadStatus | null;
  /** a drop waiting for the user to pick one of its models, or null */
  dropChoice: DropChoice | null;
  /** strict loading: recognized features the engine only approximates fail the load (default: warnings) */
  strict: boolean;
  /** a link wants to load a scene from another host: asks the user first */
  urlConsent: { url: string; host: string; link: LinkState } | null;
  selection: number | null;
  /** the joint panel is open (frames then carry the joint state) */
  jointPanel: boolean;
  contact: ContactDetail | null;
  view: ViewState;
  /** the explicit options the scene was loaded with (its file's, or its link's) */
  loadedOptions: Record<string, string | number | boolean>;
  /** the shortcut overlay is open */
  help: boolean;
  /** panels, plots and info boxes are hidden: the viewport and timeline only */
  panelsHidden: boolean;
  /** the MuJoCo ghost's status: phase, why it cannot run, what it does not mirror */
  ghost: GhostStatus;
  /** the viewport is being recorded: since when (performance.now() [ms]) and in which MIME type */
  recording: { since: number; type: string } | null;
  /** the container the user picked for recordings (null: MP4 where the browser records it, else WebM) */
  recordFormat: 'mp4' | 'webm' | null;
  /** the scene tree panel is open */
  sceneTree: boolean;
  set(partial: Partial<StudioState>): void;
  setView(partial: Partial<ViewState>): void;
  pushError(e: ErrorInfo): void;
  dismissErrors(): void;
}

export const useStudio = create<StudioState>()((set) => ({
  scene: null,
  sceneRef: null,
  loads: 0,
  options: null,
  playing: false,
  speed: 1,
  num_worlds: 1,
  stats: null,
  trajectory: false,
  backendChoice: 'cpu',
  backend: null,
  errors: [],
  notice: '',
  loading: null,
  dropChoice: null,
  strict: false,
  urlConsent: null,
  selection: null,
  jointPanel: false,
  contact: null,
  view: {
    visual: true,
    collision: false,
    overlay: false,
    normals: true,
    forces: true,
    force_scale: 0.01,
    shadows: true,
    islands: false,
    follow: false,
    ghost: false,
  },
  loadedOptions: {},
  help: false,
  panelsHidden: false,
  ghost: { phase: 'off', why: '', version: '', notMirrored: [] },
  recording: null,
  recordFormat: null,
  sceneTree: false,
  set: (partial) => set(partial),
  setView: (partial) => set((s) => ({ view: { ...s.view, ...partial } })),
  pushError: (e) => set((s) => ({ errors: [...s.errors.slice(-4), e] })),
  dismissErrors: () => set({ errors: [] }),
}));
