/**
 * The studio's keyboard shortcuts: one table that the key handler runs and the help overlay (`?`)
 * lists, so the two never disagree.
 */
import { toggleRecording } from './recording/video';
import { send, setPlaying, viewport } from './session';
import { setGhost } from './ghost';
import { useStudio } from './store';
import { toggleInspector } from './inspector';

export interface Shortcut {
  /** `KeyboardEvent.key` values that trigger it */
  keys: readonly string[];
  /** how the overlay writes the key */
  label: string;
  what: string;
  run(): void;
}

function toggleFullscreen(): void {
  if (document.fullscreenElement) void document.exitFullscreen();
  else void document.documentElement.requestFullscreen?.().catch(() => undefined);
}

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: [' '], label: 'Space', what: 'play / pause', run: () => setPlaying(!useStudio.getState().playing) },
  {
    keys: ['s'],
    label: 's',
    what: 'one step (pauses)',
    run: () => {
      setPlaying(false);
      send({ type: 'step', n: 1 });
    },
  },
  { keys: ['r'], label: 'r', what: 'reset to the initial state', run: () => send({ type: 'reset' }) },
  { keys: ['f'], label: 'f', what: 'frame the selected body', run: () => viewport.handle?.frameSelected() },
  {
    keys: ['a'],
    label: 'a',
    what: 'frame everything, where it is now',
    run: () => viewport.handle?.frameAll(),
  },
  { keys: ['1'], label: '1', what: 'camera: front', run: () => viewport.handle?.cameraPreset('front') },
  { keys: ['2'], label: '2', what: 'camera: side', run: () => viewport.handle?.cameraPreset('side') },
  { keys: ['3'], label: '3', what: 'camera: top', run: () => viewport.handle?.cameraPreset('top') },
  { keys: ['4'], label: '4', what: 'camera: three-quarter', run: () => viewport.handle?.cameraPreset('iso') },
  {
    keys: ['h'],
    label: 'h',
    what: 'hide / show panels and plots',
    run: () => useStudio.getState().set({ panelsHidden: !useStudio.getState().panelsHidden }),
  },
  { keys: ['F'], label: 'Shift+F', what: 'fullscreen', run: toggleFullscreen },
  {
    keys: ['?'],
    label: '?',
    what: 'this help',
    run: () => useStudio.getState().set({ help: !useStudio.getState().help }),
  },
  {
    keys: ['Escape'],
    label: 'Esc',
    what: 'close this help',
    run: () => useStudio.getState().set({ help: false }),
  },
  {
    keys: ['g'],
    label: 'g',
    what: 'MuJoCo ghost on / off (says why when the model cannot be given to MuJoCo)',
    run: () => setGhost(!useStudio.getState().view.ghost),
  },
  { keys: ['i'], label: 'i', what: 'step inspector: the solve of this step (pauses)', run: toggleInspector },
  {
    keys: ['v'],
    label: 'v',
    what: 'record the viewport: start / stop (downloads the video)',
    run: () => toggleRecording(),
  },
  {
    keys: ['t'],
    label: 't',
    what: 'scene tree: bodies, joints, shapes',
    run: () => useStudio.getState().set({ sceneTree: !useStudio.getState().sceneTree }),
  },
];

const TEXT_INPUTS = new Set(['text', 'number', 'search', 'email', 'url', 'password', 'tel']);

/** the focused element takes typed characters (a text field), so shortcuts stay out of its way */
export function takesText(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable || t.tagName === 'TEXTAREA') return true;
  return t instanceof HTMLInputElement && TEXT_INPUTS.has(t.type);
}

/**
 * the window's keydown handler. A clicked button, checkbox, select or slider keeps the focus, and
 * Space would press it again: shortcuts win over those, and the control gives the focus back.
 */
export function onShortcutKey(e: KeyboardEvent): void {
  if (e.ctrlKey || e.metaKey || e.altKey || takesText(e.target)) return;
  const hit = SHORTCUTS.find((s) => s.keys.includes(e.key));
  if (!hit) return;
  e.preventDefault();
  if (e.target instanceof HTMLElement && e.target !== document.body) e.target.blur();
  hit.run();
}
