/**
 * Viewport recording: a MediaRecorder on the viewport canvas's `captureStream`, MP4 where the browser
 * records it (`MediaRecorder.isTypeSupported('video/mp4')`), else WebM (VP9, VP8). The canvas keeps
 * `preserveDrawingBuffer: false`: the stream takes each frame as the page composites it, so frames
 * are the rendered ones, not a cleared buffer. Stopping downloads the file, named after the model and
 * the time; the recording state (start time, container) is slow UI state in the store.
 */
import { downloadBlob, stampedFileName } from '../download';
import { useStudio } from '../store';

/** containers in order of preference, each with the MIME types tried for it */
export const VIDEO_CONTAINERS = [
  { ext: 'mp4', types: ['video/mp4;codecs=avc1', 'video/mp4'] },
  { ext: 'webm', types: ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'] },
] as const;
export type VideoContainer = (typeof VIDEO_CONTAINERS)[number]['ext'];

/** m:ss of a duration [ms] (the recording indicator) */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** frames per second asked of the canvas stream */
export const RECORD_FPS = 30;
/** encoder bit rate [bit/s]: sharp edges at 1080p */
export const RECORD_BITRATE = 8_000_000;

/**
 * the MIME type to record `container` with (the first one `supported` accepts), else null; without
 * a container, the most preferred one the browser records
 */
export function chooseVideoType(
  supported: (type: string) => boolean,
  container?: VideoContainer,
): { ext: VideoContainer; type: string } | null {
  for (const c of VIDEO_CONTAINERS) {
    if (container && c.ext !== container) continue;
    const type = c.types.find((t) => supported(t));
    if (type) return { ext: c.ext, type };
  }
  return null;
}

/** the containers this browser can record (none where MediaRecorder is missing) */
export function recordableContainers(): VideoContainer[] {
  if (typeof MediaRecorder === 'undefined') return [];
  return VIDEO_CONTAINERS.filter((c) => chooseVideoType((t) => MediaRecorder.isTypeSupported(t), c.ext)).map(
    (c) => c.ext,
  );
}

/** the newest finished recording (for the e2e tests and the bar's note) */
export const lastRecording: { name: string; bytes: number; type: string; blob: Blob | null } = {
  name: '',
  bytes: 0,
  type: '',
  blob: null,
};

let active: { recorder: MediaRecorder; chunks: Blob[]; ext: VideoContainer; model: string } | null = null;

/** the viewport's canvas (react-three-fiber's, inside the element tagged `viewport`) */
function viewportCanvas(): HTMLCanvasElement | null {
  return document.querySelector<HTMLCanvasElement>('[data-testid="viewport"] canvas');
}

/** starts recording the viewport; returns why it cannot (no canvas, no recorder, no container) or null */
export function startRecording(container?: VideoContainer): string | null {
  if (active) return 'a recording is already running';
  const canvas = viewportCanvas();
  if (!canvas) return 'there is no viewport to record';
  if (typeof MediaRecorder === 'undefined' || typeof canvas.captureStream !== 'function') {
    return 'this browser cannot record a canvas (no MediaRecorder or captureStream)';
  }
  const choice = chooseVideoType((t) => MediaRecorder.isTypeSupported(t), container);
  if (!choice) return `this browser records no ${container ?? 'MP4 or WebM'} video`;
  const stream = canvas.captureStream(RECORD_FPS);
  const recorder = new MediaRecorder(stream, { mimeType: choice.type, videoBitsPerSecond: RECORD_BITRATE });
  const rec = {
    recorder,
    chunks: [] as Blob[],
    ext: choice.ext,
    model: useStudio.getState().scene?.name ?? 'viewport',
  };
  recorder.ondataavailable = (e) => {
    if (e.data.size > 0) rec.chunks.push(e.data);
  };
  recorder.onstop = () => {
    for (const t of stream.getTracks()) t.stop();
    const blob = new Blob(rec.chunks, { type: choice.type });
    const name = stampedFileName(rec.model, rec.ext);
    Object.assign(lastRecording, { name, bytes: blob.size, type: choice.type, blob });
    downloadBlob(name, blob);
  };
  recorder.start(1000); // a chunk a second: a long recording never waits in one buffer
  active = rec;
  useStudio.getState().set({ recording: { since: performance.now(), type: choice.type } });
  return null;
}

/** stops the recording; the file downloads when the recorder has flushed */
export function stopRecording(): void {
  const rec = active;
  active = null;
  useStudio.getState().set({ recording: null });
  if (rec && rec.recorder.state !== 'inactive') rec.recorder.stop();
}

/** `v`: starts or stops; a refusal shows as the notice */
export function toggleRecording(container?: VideoContainer): void {
  if (active) return stopRecording();
  const why = startRecording(container ?? useStudio.getState().recordFormat ?? undefined);
  if (why) useStudio.getState().set({ notice: `cannot record: ${why}` });
}
