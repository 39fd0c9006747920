/**
 * The studio session: one engine worker (through SimClient), event routing into the slow store,
 * the fast-path frame source for the viewport, the ablation series for the plots (kept in
 * series.ts), scene loading by reference (catalog, URL, inline text, dropped files) and shareable
 * links.
 */
import { SOLVER_OPTION_KEYS } from '../engine/index';
import { SimClient } from '../engine/worker/client';
import { inspectorSnapshot, useInspector } from './inspector_state';
import type { BackendChoice, CommandBody, WorkerEvent } from '../engine/worker/protocol';
import { TEST_BUILD } from '../engine/worker/protocol';
import { CATALOG, DEFAULT_SCENE, catalogEntry } from './catalog';
import { rankCandidates } from './candidates';
import { DropError, ReadCancelled, chooseEntry, collectFiles } from './files';
import { bindGhost, mirrorCommand } from './ghost';
import {
  LinkError,
  MAX_INLINE_SCENE,
  decodeF64,
  decodeLink,
  encodeF64,
  linkPayloadFromHash,
  linkUrl,
  type LinkState,
} from './link';
import {
  bumpOptionsEpoch,
  clearSeries,
  clearTrajectory,
  pushSample,
  pushTrajectory,
  series,
  trajectory,
} from './series';
import { useStudio, type SceneRef } from './store';
import type { CameraPreset } from './viewport/framing';
import { textureStatus } from './viewport/textures';
import { dispatchWorkerEvent } from './worker_events';
import { LIMITS, limitMessage, nonUtf8BomReason } from '../engine/worker/limits';

// ------------------------------------------------------------------------------------------ ablation series

export { onSeries, series, seriesCsv, trajectory } from './series';

/** starts or stops trajectory-mode ablation from the current state */
export function setTrajectory(on: boolean): void {
  send({ type: 'request_trajectory', on });
}

// ------------------------------------------------------------------------------------------ viewport hooks

/** what the viewport registers so links and buttons can read and move the camera */
export interface ViewportHandle {
  getCamera(): { position: number[]; target: number[] };
  setCamera(position: number[], target: number[]): void;
  /** frames every body where it is now */
  frameAll(): void;
  frameSelected(): void;
  /** looks at everything from a named direction (front, side, top, iso) */
  cameraPreset(name: CameraPreset): void;
  /** page coordinates [CSS px] of a world point (for tests that click and drag) */
  project(p: number[]): [number, number];
  /** world position of a body as drawn (with its world's display offset) */
  bodyPosition(body: number): number[] | null;
  /** world positions of the rendered contact markers (for tests) */
  markers(): { pC: number[][]; x0: number[][]; x1: number[][] };
  /** the visual meshes drawn with a decoded image, and the distinct images' sizes [px] (for tests) */
  texturedDraws(): { meshes: number; images: number[][] };
}
/**
 * `pendingCamera`: a camera a link asked for, applied by the viewport when the link's scene has
 * loaded, in place of framing the scene (framing after a load would otherwise overwrite it)
 */
export const viewport: {
  handle: ViewportHandle | null;
  pendingCamera: { position: number[]; target: number[] } | null;
} = { handle: null, pendingCamera: null };

/** what the plots register: the data each chart currently draws (for tests) */
export const plots: { data: (() => Record<string, (number | null)[][]>) | null } = { data: null };

// ------------------------------------------------------------------------------------------ worker client

let frames = 0;
let nextRequest = 1;
const pending = new Map<number, { ref: SceneRef; after?: () => void }>();
let afterNextReady: (() => void) | null = null;
const consoleErrors: string[] = [];

/** the error codes that end a load (the worker's load errors) */
const LOAD_ERROR_CODES = new Set(['load', 'unsupported_format', 'asset']);
/** the reason of the error that ends a cancelled load (engine/worker/load_any.ts CANCELLED) */
const LOAD_CANCELLED = 'cancelled';

function onEvent(e: WorkerEvent): void {
  const st = useStudio.getState();
  switch (e.type) {
    case 'ready': {
      const p = e.request_id !== undefined ? pending.get(e.request_id) : undefined;
      if (e.request_id !== undefined) pending.delete(e.request_id);
      clearSeries();
      clearTrajectory();
      interacted = false;
      st.set({
        trajectory: false, // a load (or a restarted worker) stops trajectory-mode ablation
        scene: e.scene,
        options: e.options,
        loadedOptions: e.options.explicit,
        loads: st.loads + 1,
        num_worlds: e.scene.num_worlds,
        contact: null,
        selection: null,
        loading: null,
        ...(p ? { sceneRef: p.ref } : {}),
      });
      client.send({ type: 'set_sim', contacts: st.view.overlay, islands: st.view.islands, speed: st.speed });
      p?.after?.();
      const a = afterNextReady;
      afterNextReady = null;
      a?.();
      break;
    }
    case 'load_progress': {
      const { phase, done, total, file } = e;
      const l = st.loading;
      st.set({
        loading: {
          name: l?.name ?? st.scene?.file_name ?? '',
          since: l?.since ?? performance.now(),
          phase,
          done,
          total,
          file,
        },
      });
      break;
    }
    case 'options':
      st.set({ options: e.options });
      bumpOptionsEpoch(); // the energy drift is judged from here: new options change the model
      break;
    case 'frame':
      frames++;
      break;
    case 'stats':
      st.set({ stats: e.stats });
      break;
    case 'ablation':
      pushSample(e.sample);
      break;
    case 'trajectory':
      pushTrajectory(e.sample);
      break;
    case 'trajectory_state':
      st.set({ trajectory: e.on });
      if (e.on) clearTrajectory();
      break;
    case 'play_state':
      st.set({ playing: e.playing });
      break;
    case 'backend':
      st.set({ backend: e.backend });
      break;
    case 'error':
      if (LOAD_ERROR_CODES.has(e.error.code)) st.set({ loading: null });
      if (e.error.reason === LOAD_CANCELLED) {
        st.set({
          notice: `loading ${e.error.file ?? 'the scene'} was cancelled; the current scene keeps running`,
        });
        break;
      }
      useInspector.getState().failed(e.error);
      st.pushError(e.error);
      consoleErrors.push(e.error.message);
      if (e.error.code === 'worker_restarted') st.set({ notice: e.error.message });
      break;
    case 'ring':
      break;
    case 'inspection':
      useInspector.getState().receive(e.inspection);
      break;
  }
}

export const client = new SimClient((e) => {
  onEvent(e);
  dispatchWorkerEvent(e);
});
bindGhost(client);

/**
 * bodies were dragged or controls set since the scene loaded or reset: replaying the steps from the
 * initial state would not reproduce what is on screen, so links carry the state itself
 */
let interacted = false;

export function send(cmd: CommandBody, transfer?: Transferable[]): void {
  if ((cmd.type === 'perturb' && cmd.body >= 0) || cmd.type === 'set_control') interacted = true;
  // options or a time step changed mid-run: the steps so far ran under other settings, so replaying
  // them under the link's settings would not reproduce the state either
  else if (
    (cmd.type === 'set_options' || (cmd.type === 'set_sim' && cmd.dt !== undefined)) &&
    client.latest.step > 0
  )
    interacted = true;
  else if (cmd.type === 'reset') interacted = false;
  client.send(cmd, transfer);
  mirrorCommand(cmd);
}

// the body inspector (a body selected) and the joint panel (open) read the joint state from the frames
useStudio.subscribe((s, prev) => {
  const want = s.selection !== null || s.jointPanel || s.view.ghost;
  if (want !== (prev.selection !== null || prev.jointPanel || prev.view.ghost))
    client.send({ type: 'set_sim', joints: want });
});

// ------------------------------------------------------------------------------------------ loading

/** dropped files up to this size are kept for reloading after a worker restart [bytes] */
const KEEP_DROP_BYTES = 64 * 1024 * 1024;

interface LoadExtras {
  num_worlds?: number;
  options?: Record<string, string | number | boolean | null>;
  dt?: number;
  /** MJCF: the keyframe to start from */
  keyframe?: string;
  play?: boolean;
  after?: () => void;
}

/** shows a load as under way (the worker's progress events refine it) */
function loadingStarted(name: string, phase = 'files', total = 1): void {
  useStudio.getState().set({ loading: { name, phase, done: 0, total, since: performance.now() } });
}

function loadText(ref: SceneRef, text: string, fileName: string, x: LoadExtras = {}): void {
  const id = nextRequest++;
  pending.set(id, { ref, after: x.after });
  loadingStarted(fileName);
  send({
    type: 'load_scene',
    source: { kind: 'text', text, file_name: fileName },
    num_worlds: x.num_worlds,
    options: x.options,
    dt: x.dt,
    keyframe: x.keyframe,
    strict: useStudio.getState().strict,
    play: x.play ?? useStudio.getState().playing,
    request_id: id,
  });
}

export async function loadCatalog(id: string, x: LoadExtras = {}): Promise<void> {
  const entry = catalogEntry(id);
  if (!entry) {
    useStudio
      .getState()
      .pushError({ code: 'load', message: `no built-in scene '${id}'`, reason: 'unknown catalog id' });
    return;
  }
  loadText({ kind: 'catalog', id }, await entry.load(), entry.file_name, x);
}

/** whether a URL is on the studio's own origin (loading it needs no consent) */
export function isSameOrigin(url: string): boolean {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

/** reads a response body, stopping past `limit` bytes */
async function boundedText(res: Response, limit: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return res.text();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > limit) {
      await reader.cancel();
      throw new Error(limitMessage(`the scene file (more than ${limit} bytes)`, 'max_url_scene_bytes'));
    }
    chunks.push(value);
  }
  const all = new Uint8Array(n);
  let o = 0;
  for (const c of chunks) {
    all.set(c, o);
    o += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

/**
 * Fetches a scene by URL (https, or http on the studio's own origin; size-limited; no credentials)
 * and loads it. Links call it only after the user agreed (see {@link applyLink}).
 */
export async function loadUrl(url: string, x: LoadExtras = {}): Promise<void> {
  const st = useStudio.getState();
  try {
    const u = new URL(url);
    const same = u.origin === location.origin;
    if (u.protocol !== 'https:' && !(same && u.protocol === 'http:')) {
      throw new Error('only https URLs (or the studio’s own origin) can be loaded');
    }
    const res = await fetch(u.href, {
      credentials: 'omit',
      redirect: 'error',
      referrerPolicy: 'no-referrer',
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const limit = LIMITS.max_url_scene_bytes;
    const len = Number(res.headers.get('content-length') ?? 0);
    if (len > limit) throw new Error(limitMessage(`the scene file of ${len} bytes`, 'max_url_scene_bytes'));
    const text = await boundedText(res, limit);
    const name = u.pathname.slice(u.pathname.lastIndexOf('/') + 1) || 'scene.yaml';
    loadText({ kind: 'url', url: u.href }, text, name, x);
  } catch (e) {
    st.pushError({
      code: 'load',
      file: url,
      message: `${url}: ${e instanceof Error ? e.message : String(e)}`,
    });
  }
}

/** the files of the last drop that held several models, kept so the user can pick another one */
let dropped: Map<string, Uint8Array> | null = null;
/** the user cancelled while the dropped files were being read */
let readCancelled = false;

/**
 * Loads dropped or picked files (a scene, a robot with its meshes, a folder, a zip). The files are
 * read with progress (cancellable); a drop with one candidate model loads it, one with several
 * offers them in the chooser (app/ui/DropChooser.tsx: {@link chooseDropped}).
 */
/** test builds: reads of dropped files wait on this while the end-to-end tests hold them */
const readHold: { promise: Promise<void>; release: () => void } = {
  promise: Promise.resolve(),
  release: () => {},
};

export async function loadFiles(items: { path: string; file: Blob }[]): Promise<void> {
  const st = useStudio.getState();
  readCancelled = false;
  // a new drop replaces the one the chooser kept
  dropped = null;
  st.set({ dropChoice: null });
  const name = items.length === 1 ? items[0].path : `${items.length} dropped files`;
  useStudio
    .getState()
    .set({ loading: { name, phase: 'read', done: 0, total: items.length, since: performance.now() } });
  try {
    const files = await collectFiles(
      items,
      (done, total) => {
        const l = useStudio.getState().loading;
        if (l?.phase === 'read') useStudio.getState().set({ loading: { ...l, done, total } });
      },
      () => readCancelled,
      TEST_BUILD ? () => readHold.promise : undefined,
    );
    useStudio.getState().set({ loading: null });
    // one file goes to its loader whatever it holds, so a broken one is reported where it breaks
    if (files.size === 1) {
      const entry = chooseEntry(files.keys());
      if (!entry) throw new DropError([...files.keys()][0], 'not a scene, URDF, MJCF or USD file');
      loadDropped(files, entry);
      return;
    }
    const { candidates, setAside } = rankCandidates(files.keys(), (p) => files.get(p));
    if (candidates.length === 1) {
      loadDropped(files, candidates[0].path);
      return;
    }
    if (candidates.length === 0 && setAside.length === 0) {
      const names = [...files.keys()].slice(0, 5).join(', ');
      throw new DropError(names || '(nothing)', 'no scene, URDF, MJCF or USD file among the dropped files');
    }
    // several models (or only fragments): the user picks; nothing is chosen silently
    dropped = files;
    st.set({ dropChoice: { count: files.size, candidates, setAside, open: true } });
  } catch (e) {
    useStudio.getState().set({ loading: null });
    if (e instanceof ReadCancelled) st.set({ notice: `${e.message}; the current scene keeps running` });
    else if (e instanceof DropError)
      st.pushError({ code: 'load', file: e.file, message: e.message, reason: e.reason });
    else st.pushError({ code: 'load', message: e instanceof Error ? e.message : String(e) });
  }
}

/** loads `path` of the last drop that offered several models, and closes the chooser */
export function chooseDropped(path: string): void {
  const st = useStudio.getState();
  if (!dropped || !dropped.has(path) || !st.dropChoice) return;
  st.set({ dropChoice: { ...st.dropChoice, open: false } });
  try {
    loadDropped(dropped, path, true);
  } catch (e) {
    st.pushError({ code: 'load', file: path, message: e instanceof Error ? e.message : String(e) });
  }
}

/** opens (or closes) the chooser of the last drop that offered several models */
export function showDropChooser(open: boolean): void {
  const c = useStudio.getState().dropChoice;
  if (c) useStudio.getState().set({ dropChoice: { ...c, open } });
}

/** cancels the load under way (reading the dropped files, or the worker's load); the current scene stays */
export function cancelLoad(): void {
  const l = useStudio.getState().loading;
  if (!l) return;
  if (l.phase === 'read') readCancelled = true;
  else send({ type: 'cancel_load' });
  useStudio.getState().set({ loading: null });
}

/** strict loading on or off; the current scene reloads under the new policy (refused: it keeps running) */
export function setStrict(strict: boolean): void {
  const st = useStudio.getState();
  if (st.strict === strict) return;
  st.set({ strict });
  if (!st.scene) return;
  loadingStarted(st.scene.file_name);
  send({ type: 'reload', strict });
}

/** sends the entry `entry` of a file map to the worker */
function loadDropped(files: Map<string, Uint8Array>, entry: string, keep = false): void {
  const st = useStudio.getState();
  const bytes = files.get(entry)!;
  // one text file (a scene, or a model that needs no other file) travels inline, so links carry it
  const textLike = /\.(ya?ml|json|xml|urdf|mjcf|usda)$/i.test(entry);
  if (files.size === 1 && textLike && bytes.byteLength <= MAX_INLINE_SCENE) {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new DropError(entry, nonUtf8BomReason(bytes) ?? 'not UTF-8 text');
    }
    const name = entry.slice(entry.lastIndexOf('/') + 1);
    loadText({ kind: 'inline', name, text }, text, name, {});
    return;
  }
  const id = nextRequest++;
  pending.set(id, { ref: { kind: 'files', name: entry, count: files.size } });
  // small drops are copied, so a restarted worker can load them again, and so are drops kept for the
  // chooser; big ones are handed over
  const total = [...files.values()].reduce((s, b) => s + b.byteLength, 0);
  const transfer =
    keep || total <= KEEP_DROP_BYTES
      ? []
      : ([...new Set([...files.values()].map((b) => b.buffer))] as ArrayBuffer[]);
  loadingStarted(entry);
  send(
    {
      type: 'load_scene',
      source: { kind: 'files', files, entry },
      strict: st.strict,
      play: st.playing,
      request_id: id,
    },
    transfer,
  );
}

// ------------------------------------------------------------------------------------------ links

/**
 * the link state of what is on screen now; throws LinkError when the scene cannot travel in a link.
 * With `snapshot` (the worker's state), the link carries that exact state at its step.
 */
export function currentLinkState(snapshot?: {
  step: number;
  time: number;
  joint_q: ArrayLike<number>;
  joint_qd: ArrayLike<number>;
}): LinkState {
  const st = useStudio.getState();
  const ref = st.sceneRef;
  if (!ref) throw new LinkError('scene', 'no scene loaded');
  if (ref.kind === 'files') {
    throw new LinkError(
      'scene',
      `this scene came from ${ref.count} dropped files; links carry built-in scenes, URLs and single scene or model files`,
    );
  }
  const scene: LinkState['scene'] =
    ref.kind === 'catalog'
      ? { kind: 'catalog', id: ref.id }
      : ref.kind === 'url'
        ? { kind: 'url', url: ref.url }
        : { kind: 'inline', name: ref.name, text: ref.text };
  const cam = viewport.handle?.getCamera();
  const round = (v: number[]) => v.map((x) => Math.round(x * 1e4) / 1e4) as [number, number, number];
  const explicit = st.options?.explicit ?? {};
  return {
    v: 1,
    scene,
    options: Object.keys(explicit).length ? explicit : undefined,
    sim: {
      dt: st.scene?.dt,
      speed: st.speed,
      num_worlds: st.scene?.num_worlds,
      // only when not the default, so links without it (older ones too) mean the CPU
      ...(st.backendChoice !== 'cpu' ? { backend: st.backendChoice } : {}),
      ...(st.scene?.keyframe ? { keyframe: st.scene.keyframe } : {}),
    },
    camera: cam ? { position: round(cam.position), target: round(cam.target) } : undefined,
    step: snapshot?.step ?? client.latest.step,
    time: snapshot?.time ?? client.latest.time,
    ...(snapshot
      ? { state: { joint_q: encodeF64(snapshot.joint_q), joint_qd: encodeF64(snapshot.joint_qd) } }
      : {}),
    playing: st.playing,
    selection: st.selection,
    view: {
      overlay: st.view.overlay,
      collision: st.view.collision,
      visual: st.view.visual,
      ...(st.view.follow ? { follow: true } : {}),
    },
  };
}

/**
 * the link of what is on screen: after drags or control changes it carries the worker's exact state
 * (falling back to the step replay, with `note` saying so, when that state does not fit in a link)
 */
export async function buildLink(): Promise<{ url: string; note: string }> {
  if (interacted) {
    const snap = await client.fetchSnapshot();
    if (snap) {
      try {
        return { url: linkUrl(location.href, currentLinkState(snap)), note: ' with the current state' };
      } catch (e) {
        if (!(e instanceof LinkError) || e.path !== '') throw e;
        return {
          url: linkUrl(location.href, currentLinkState()),
          note: `; the state is too large for a link, so it replays ${client.latest.step} steps from the start without your drags or setting changes`,
        };
      }
    }
  }
  return { url: linkUrl(location.href, currentLinkState()), note: '' };
}

/** builds the link, puts it in the address bar and on the clipboard */
export async function copyLink(): Promise<string | null> {
  const st = useStudio.getState();
  try {
    const { url, note } = await buildLink();
    history.replaceState(null, '', url);
    try {
      await navigator.clipboard.writeText(url);
      st.set({ notice: `link copied (${url.length} characters)${note}` });
    } catch {
      st.set({
        notice: `link in the address bar (${url.length} characters)${note}; the clipboard was not available`,
      });
    }
    return url;
  } catch (e) {
    const err = e instanceof LinkError ? e : new LinkError('', String(e));
    st.pushError({ code: 'link', message: err.message, path: err.path || undefined, reason: err.reason });
    return null;
  }
}

/**
 * Opens a link: loads its scene with its settings, replays its steps, restores camera and view. A link
 * whose scene is a URL on another host is not fetched until the user agrees: it returns 'consent' and
 * the studio shows the question (app/ui/UrlConsent.tsx), which calls {@link answerUrlConsent}.
 */
export function applyLink(link: LinkState, consented = false): 'applied' | 'consent' {
  const st = useStudio.getState();
  if (link.scene.kind === 'url' && !consented && !isSameOrigin(link.scene.url)) {
    let host = link.scene.url;
    try {
      host = new URL(link.scene.url).host;
    } catch {
      /* the schema checked it; keep the text */
    }
    st.set({ urlConsent: { url: link.scene.url, host, link } });
    return 'consent';
  }
  if (link.view) st.setView(link.view);
  if (link.sim?.speed) st.set({ speed: link.sim.speed });
  // the backend is chosen before the scene loads, so the load makes it (links without one: cpu)
  setBackend(link.sim?.backend ?? 'cpu');
  // the link's explicit options replace the scene's: keys it does not name are cleared
  const options: Record<string, string | number | boolean | null> = Object.fromEntries(
    SOLVER_OPTION_KEYS.map((k) => [k, null]),
  );
  Object.assign(options, link.options ?? {});
  const after = () => {
    if (link.state) {
      // the exact state (it cannot be replayed: it followed drags or control changes)
      try {
        send({
          type: 'restore',
          step: link.step ?? 0,
          time: link.time ?? 0,
          joint_q: decodeF64(link.state.joint_q, 'state.joint_q'),
          joint_qd: decodeF64(link.state.joint_qd, 'state.joint_qd'),
        });
        interacted = true;
      } catch (e) {
        const err = e instanceof LinkError ? e : new LinkError('state', String(e));
        useStudio
          .getState()
          .pushError({ code: 'link', message: err.message, path: err.path, reason: err.reason });
      }
    } else if (link.step && link.step > 0) send({ type: 'step', n: link.step });
    const s = useStudio.getState();
    if (link.camera) {
      viewport.pendingCamera = { position: link.camera.position, target: link.camera.target };
      viewport.handle?.setCamera(link.camera.position, link.camera.target);
    }
    const sel = link.selection ?? null;
    s.set({ selection: sel !== null && s.scene && sel < s.scene.body_count ? sel : null });
    if (link.playing) send({ type: 'play' });
  };
  const x: LoadExtras = {
    num_worlds: link.sim?.num_worlds,
    options,
    dt: link.sim?.dt,
    keyframe: link.sim?.keyframe,
    play: false,
    after,
  };
  if (link.scene.kind === 'catalog') void loadCatalog(link.scene.id, x);
  else if (link.scene.kind === 'url') void loadUrl(link.scene.url, x);
  else
    loadText(
      { kind: 'inline', name: link.scene.name, text: link.scene.text },
      link.scene.text,
      link.scene.name,
      x,
    );
  return 'applied';
}

/** the user's answer to a link's URL scene: load it, or keep the current scene */
export function answerUrlConsent(load: boolean): void {
  const st = useStudio.getState();
  const c = st.urlConsent;
  if (!c) return;
  st.set({ urlConsent: null });
  if (load) applyLink(c.link, true);
  else st.set({ notice: `the link’s scene at ${c.host} was not loaded` });
}

/** startup: the link in the URL hash if any (errors shown, default scene loaded), else the default */
export function start(): void {
  const payload = linkPayloadFromHash(location.hash);
  if (payload !== null) {
    try {
      // a URL scene waits for consent: the default scene runs meanwhile
      if (applyLink(decodeLink(payload)) === 'applied') return;
    } catch (e) {
      const err = e instanceof LinkError ? e : new LinkError('', String(e));
      useStudio
        .getState()
        .pushError({ code: 'link', message: err.message, path: err.path || undefined, reason: err.reason });
    }
  }
  useStudio.getState().set({ playing: true });
  void loadCatalog(DEFAULT_SCENE, { play: true });
}

/** reacts to the user editing the hash (pasting another link into the address bar) */
export function watchHash(): void {
  window.addEventListener('hashchange', () => {
    const payload = linkPayloadFromHash(location.hash);
    if (payload === null) return;
    try {
      applyLink(decodeLink(payload));
    } catch (e) {
      const err = e instanceof LinkError ? e : new LinkError('', String(e));
      useStudio
        .getState()
        .pushError({ code: 'link', message: err.message, path: err.path || undefined, reason: err.reason });
    }
  });
}

// ------------------------------------------------------------------------------------------ commands used by panels

export function setPlaying(p: boolean): void {
  useStudio.getState().set({ playing: p });
  send({ type: p ? 'play' : 'pause' });
}

/** chooses the step backend; the worker answers with `backend` events (fallback and reason included) */
export function setBackend(kind: BackendChoice): void {
  useStudio.getState().set({ backendChoice: kind });
  send({ type: 'set_backend', backend: kind });
}

export function runAfterNextReady(fn: () => void): void {
  afterNextReady = fn;
}

// ------------------------------------------------------------------------------------------ test hooks

/** state exposed for end-to-end tests (read-only views of what the studio shows) */
export const testApi = {
  get ready() {
    return useStudio.getState().scene !== null;
  },
  get sceneName() {
    return useStudio.getState().scene?.name ?? '';
  },
  get loads() {
    return useStudio.getState().loads;
  },
  get frames() {
    return frames;
  },
  get time() {
    return client.latest.time;
  },
  get step() {
    return client.latest.step;
  },
  get playing() {
    return useStudio.getState().playing;
  },
  get transport() {
    return client.transport;
  },
  get crossOriginIsolated() {
    return globalThis.crossOriginIsolated === true;
  },
  catalog: () => CATALOG.map((c) => c.id),
  poses: () => Array.from(client.poses() ?? []),
  options: () => useStudio.getState().options,
  errors: () => useStudio.getState().errors.map((e) => e.message),
  allErrors: () => consoleErrors.slice(),
  stats: () => useStudio.getState().stats,
  /** the backend status: requested, active, pending, fallback reason, adapter, precision labels */
  backend: () => {
    const b = useStudio.getState().backend;
    return b
      ? {
          requested: b.requested,
          active: b.active,
          pending: b.pending,
          fallback: b.fallback ?? null,
          adapter: b.adapter ?? null,
          description: b.description,
          precision: { ...b.precision },
        }
      : null;
  },
  series: () => ({ time: series.time.slice(), dp: series.dp.slice(), dm: series.dm.slice() }),
  /** trajectory-mode ablation: running?, its start and the recorded divergences */
  trajectory: () => ({
    on: useStudio.getState().trajectory,
    start: trajectory.start,
    time: trajectory.time.slice(),
    q_precision: trajectory.qp.slice(),
    q_model: trajectory.qm.slice(),
    v_precision: trajectory.vp.slice(),
    v_model: trajectory.vm.slice(),
  }),
  contacts: () => {
    const c = client.latest.contacts;
    return c ? { count: c.count, truncated: c.truncated, data: Array.from(c.data) } : null;
  },
  /** the loaded scene as drawn: every shape (label, body, ShapeFlags, colour, mesh triangles), the loader's warnings and notes, the keyframes */
  scene: () => {
    const sc = useStudio.getState().scene;
    if (!sc) return null;
    return {
      bodies: sc.body_label.slice(),
      shapes: sc.shapes.map((sh) => ({
        label: sh.label,
        body: sh.body,
        flags: sh.flags,
        color: sh.color.slice(),
        triangles: sh.mesh >= 0 ? sc.meshes[sh.mesh].triangles.length / 3 : 0,
        textured: sh.mesh >= 0 && sc.meshes[sh.mesh].texture >= 0,
      })),
      textures: sc.textures.map((t) => ({ label: t.label, mime: t.mime, bytes: t.bytes.length })),
      warnings: sc.warnings.slice(),
      notes: sc.notes.slice(),
      keyframes: sc.keyframes.slice(),
      keyframe: sc.keyframe,
    };
  },
  /** the renderer's image decoding (requested, ready, failed) and what it draws with them */
  textures: () => ({
    ...textureStatus,
    drawn: viewport.handle?.texturedDraws() ?? { meshes: 0, images: [] },
  }),
  markers: () => viewport.handle?.markers() ?? null,
  /** the drop chooser: its candidate paths (best first) and the files set aside, or null */
  dropChoice: () => {
    const c = useStudio.getState().dropChoice;
    return c
      ? { open: c.open, candidates: c.candidates.map((x) => x.path), setAside: c.setAside.map((x) => x.path) }
      : null;
  },
  /** the load under way (phase, done, total), or null */
  loading: () => {
    const l = useStudio.getState().loading;
    return l ? { phase: l.phase, done: l.done, total: l.total } : null;
  },
  get strict() {
    return useStudio.getState().strict;
  },
  /** the latest frame's joint state and constraint efforts (a body selected), else null */
  joints: () => {
    const j = client.latest.joints;
    return j ? { q: Array.from(j.q), qd: Array.from(j.qd), effort: Array.from(j.effort) } : null;
  },
  /** the constraint island per body from the latest frame (colour by island on), else null */
  islands: () => (client.latest.islands ? Array.from(client.latest.islands) : null),
  project: (p: number[]) => viewport.handle?.project(p) ?? null,
  bodyPosition: (b: number) => viewport.handle?.bodyPosition(b) ?? null,
  plotData: () => plots.data?.() ?? null,
  selection: () => useStudio.getState().selection,
  /** the control sequence's playback and hold pose, as the worker last reported them */
  control: () => useStudio.getState().stats?.control ?? null,
  camera: () => viewport.handle?.getCamera() ?? null,
  link: () => linkUrl(location.href, currentLinkState()),
  send: (cmd: CommandBody) => send(cmd),
  /** worker restarts so far (a dead worker is replaced and its state restored) */
  get restarts() {
    return client.restarts;
  },
  /**
   * test builds: holds the reads of dropped files after those under way (true) or lets them go
   * (false), so that a test can see the read's progress and cancel it whatever the machine's speed
   */
  holdReads: (on: boolean) => {
    if (!TEST_BUILD) return;
    readHold.release();
    if (on) readHold.promise = new Promise<void>((r) => (readHold.release = r));
    else readHold.promise = Promise.resolve();
  },
  /** fault injection: makes the engine worker fail ('close', 'hang', 'throw') or a world diverge */
  fault: (fault: 'nan' | 'energy' | 'throw' | 'close' | 'hang', world?: number) =>
    send({ type: 'debug', fault, world }),
  inspector: () => inspectorSnapshot(), // the step inspector (app/inspector_state.ts)
};
