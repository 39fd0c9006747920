/**
 * First-light page: picks a built-in scene, runs it in the engine worker in real time and draws a
 * side view (x–z) of every shape's bounding outline, with live solver stats. The full studio
 * (three.js viewport, leva panels, plots, links) replaces this page in the studio issue.
 */
import { SimClient } from '../engine/worker/client';
import type { SceneInfo, WorkerEvent } from '../engine/worker/protocol';
import { drawSideView } from './side_view';

const sceneFiles = import.meta.glob('../scenes/*.yaml', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;
const byName = new Map(Object.entries(sceneFiles).map(([p, text]) => [p.split('/').pop()!, text]));

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const select = $<HTMLSelectElement>('scene');
const statsEl = $<HTMLPreElement>('stats');
const errorEl = $<HTMLParagraphElement>('error');
const descEl = $<HTMLParagraphElement>('description');
const canvas = $<HTMLCanvasElement>('view');
const playBtn = $<HTMLButtonElement>('play');

let scene: SceneInfo | null = null;
let poses: Float32Array | null = null;
let playing = true;

/** state exposed for end-to-end tests */
const testState = { sceneName: '', time: 0, frames: 0, poses: [] as number[], errors: [] as string[] };
(window as unknown as { __sapStudio: typeof testState }).__sapStudio = testState;

const client = new SimClient((e: WorkerEvent) => {
  switch (e.type) {
    case 'ready':
      scene = e.scene;
      testState.sceneName = e.scene.name;
      errorEl.textContent = '';
      break;
    case 'frame':
      poses = e.poses;
      testState.time = e.time;
      testState.frames++;
      testState.poses = Array.from(e.poses);
      break;
    case 'stats':
      statsEl.textContent =
        `t = ${e.time.toFixed(3)} s\nstatus ${e.status}\nNewton iterations ${e.iterations.toFixed(1)}\n` +
        `line-search iterations ${e.line_search_iterations}\ncontacts ${e.contacts} (truncated ${e.truncated})\n` +
        `step ${e.step_ms.toFixed(2)} ms`;
      break;
    case 'error':
      // textContent, never innerHTML: messages can carry file content
      errorEl.textContent = `${e.where ? e.where + ': ' : ''}${e.message}`;
      testState.errors.push(e.message);
      break;
  }
});

function load(name: string): void {
  const text = byName.get(name);
  if (!text) return;
  const m = /description:\s*>-?\s*\n((?:\s{2,}.*\n)+)/.exec(text);
  descEl.textContent = m ? m[1].replace(/\s+/g, ' ').trim() : '';
  client.send({ type: 'load_scene', text, file_name: name });
  if (playing) client.send({ type: 'play' });
}

for (const name of [...byName.keys()].sort()) {
  const opt = document.createElement('option');
  opt.value = name;
  opt.textContent = name.replace(/\.yaml$/, '');
  select.append(opt);
}
const initial = byName.has('box_stack.yaml') ? 'box_stack.yaml' : [...byName.keys()][0];
select.value = initial;
select.onchange = () => load(select.value);
playBtn.onclick = () => {
  playing = !playing;
  client.send({ type: playing ? 'play' : 'pause' });
  playBtn.textContent = playing ? 'pause' : 'play';
};
$<HTMLButtonElement>('step').onclick = () => client.send({ type: 'step', n: 1 });
$<HTMLButtonElement>('reset').onclick = () => client.send({ type: 'reset' });
for (const id of ['preset', 'line_search']) {
  $<HTMLSelectElement>(id).onchange = () =>
    client.send({
      type: 'set_options',
      options: {
        contact_preset_variant: $<HTMLSelectElement>('preset').value,
        line_search_variant: $<HTMLSelectElement>('line_search').value,
      },
    });
}
load(initial);

function frame(): void {
  const ctx = canvas.getContext('2d');
  if (ctx && scene && poses) drawSideView(ctx, scene, poses);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
