/**
 * HTML overlays around the viewport: scene info, errors (which file, where, why), notices, the
 * truncated-contacts warning, the contact and body inspectors, the history timeline and the drop zone.
 * Everything is rendered as React text: nothing from a file or a link becomes HTML.
 */
import { SequenceBadge } from '../panels/ControlPanel';
import { useEffect, useState } from 'react';
import { timeAtStep } from '../../engine/worker/history';
import type { ErrorInfo } from '../../engine/worker/protocol';
import { filesFromDrop, type DropError } from '../files';
import { client, loadFiles, send } from '../session';
import { useStudio } from '../store';
import { RecordControls } from './RecordControls';
import { bodyInspectorRows, type InspectorRow } from './body_inspector';

/** "file — line L, column C — key path" for an error */
export function errorWhere(e: ErrorInfo): string {
  const parts: string[] = [];
  if (e.file) parts.push(e.file);
  if (e.line !== undefined)
    parts.push(`line ${e.line}${e.column !== undefined ? `, column ${e.column}` : ''}`);
  else if (e.offset !== undefined) parts.push(`byte ${e.offset}`);
  if (e.path) parts.push(e.path);
  return parts.join(' — ');
}

export function SceneInfoBox() {
  const scene = useStudio((s) => s.scene);
  const sceneRef = useStudio((s) => s.sceneRef);
  // small windows start with the box folded to its title line (a click opens it)
  const [open, setOpen] = useState(() => window.innerWidth >= 1200 && window.innerHeight >= 760);
  if (!scene) return <div className="info">loading…</div>;
  const source =
    sceneRef?.kind === 'catalog'
      ? 'built-in'
      : sceneRef?.kind === 'url'
        ? sceneRef.url
        : sceneRef?.kind === 'files'
          ? `${sceneRef.count} dropped files`
          : 'file';
  return (
    <div className="info" data-testid="scene-info">
      <div className="info-title" onClick={() => setOpen(!open)}>
        <strong>{scene.name}</strong>{' '}
        <span className="muted">
          ({scene.file_name}, {source})
        </span>
      </div>
      {open && (
        <>
          {scene.description && <p>{scene.description}</p>}
          <p className="muted">
            {scene.body_count} bodies · {scene.shapes.length} shapes · {scene.num_worlds} world
            {scene.num_worlds > 1 ? 's' : ''} · dt {scene.dt} s
          </p>
          {scene.warnings.length > 0 && (
            <details className="warn" data-testid="loader-warnings">
              <summary data-testid="loader-warning-count">
                {scene.warnings.length} loader warning{scene.warnings.length === 1 ? '' : 's'}
              </summary>
              <ul className="warnings-list">
                {scene.warnings.map((w, i) => (
                  <li key={i}>{w}</li>
                ))}
              </ul>
            </details>
          )}
          {scene.notes.length > 0 && (
            <p className="muted" data-testid="loader-notes">
              {scene.notes.join('; ')}
            </p>
          )}
          <p className="muted hint">
            drag a body to pull it · click a contact marker to inspect · drop files anywhere
          </p>
        </>
      )}
    </div>
  );
}

export function ErrorBanner() {
  const errors = useStudio((s) => s.errors);
  const dismiss = useStudio((s) => s.dismissErrors);
  if (errors.length === 0) return null;
  return (
    <div className="errors" role="alert" data-testid="error-banner">
      {errors.map((e, i) => (
        <div key={i} className="error-item" data-code={e.code}>
          <div className="error-where">{errorWhere(e) || e.code}</div>
          <div className="error-why">
            {e.reason && e.path && e.code !== 'divergence' ? e.reason : e.message}
          </div>
        </div>
      ))}
      <button onClick={dismiss}>dismiss</button>
    </div>
  );
}

export function Notice() {
  const notice = useStudio((s) => s.notice);
  const set = useStudio((s) => s.set);
  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => set({ notice: '' }), 4000);
    return () => clearTimeout(t);
  }, [notice, set]);
  return notice ? (
    <div className="notice" role="status" data-testid="notice">
      {notice}
    </div>
  ) : null;
}

/** the backend in use when it is not the chosen one (WebGPU fell back to the CPU), with the reason */
export function BackendStatus() {
  const b = useStudio((s) => s.backend);
  if (!b || (!b.fallback && !b.pending)) return null;
  if (b.pending) {
    return (
      <div className="backend-status" role="status" data-testid="backend-status">
        starting the {b.requested} backend (compiling kernels); {b.active} meanwhile
      </div>
    );
  }
  return (
    <div className="backend-status warn" role="alert" data-testid="backend-status" data-fallback="true">
      ⚠ {b.requested} → {b.active}: {b.fallback}
    </div>
  );
}

export function TruncationWarning() {
  const truncated = useStudio((s) => s.stats?.truncated ?? 0);
  const cap = useStudio((s) => s.scene?.contact_capacity ?? 0);
  if (truncated <= 0) return null;
  return (
    <div className="truncation" role="alert" data-testid="truncation-warning">
      ⚠ {truncated} contact{truncated > 1 ? 's' : ''} truncated in the last step (capacity {cap} per world;
      raise max_rigid_contact)
    </div>
  );
}

const SLIP = ['open', 'stick', 'slip'];

export function ContactInspector() {
  const c = useStudio((s) => s.contact);
  const set = useStudio((s) => s.set);
  const scene = useStudio((s) => s.scene);
  if (!c) return null;
  const v = c.values;
  const f = [v.fx, v.fy, v.fz];
  const fn = v.fx * v.nx + v.fy * v.ny + v.fz * v.nz;
  const ft = Math.sqrt(Math.max(0, f[0] ** 2 + f[1] ** 2 + f[2] ** 2 - fn * fn));
  const name = (b: number) => (b < 0 ? 'world (static)' : (scene?.body_label[b] ?? `body ${b}`));
  const vec = (a: number[]) => `[${a.map((x) => x.toFixed(5)).join(', ')}]`;
  const rows: [string, string][] = [
    [
      'contact',
      `#${c.index} (world ${v.world}) at t = ${c.time.toFixed(3)} s${
        c.goneAt !== undefined ? ` — no longer touching since t = ${c.goneAt.toFixed(3)} s` : ''
      }`,
    ],
    ['bodies', `${name(v.body0)} → ${name(v.body1)}`],
    ['shapes', `${v.shape0} → ${v.shape1}`],
    ['state', SLIP[v.slip] ?? String(v.slip)],
    ['φ₀ (signed gap)', `${v.phi0.toExponential(4)} m ${v.phi0 < 0 ? '(penetration)' : '(gap)'}`],
    ['x0 (world)', vec(c.x0)],
    ['x1 (world)', vec(c.x1)],
    ['p_C (world)', vec([v.px, v.py, v.pz])],
    ['normal', vec([v.nx, v.ny, v.nz])],
    ['force on body 1 (γ/dt)', `${vec(f)} N`],
    ['normal / tangential', `${fn.toExponential(4)} N / ${ft.toExponential(4)} N`],
    ['impulse γ (= f·dt)', `${(fn * v.dt).toExponential(4)} N·s normal`],
    ['μ, k, τ_d', `${v.mu.toFixed(3)}, ${v.ke.toExponential(3)} N/m, ${v.tau.toExponential(3)} s`],
    ['margins', `${v.margin0.toExponential(2)} m, ${v.margin1.toExponential(2)} m`],
    ['point0 / point1 (body frames)', `${vec([v.p0x, v.p0y, v.p0z])} / ${vec([v.p1x, v.p1y, v.p1z])}`],
  ];
  return (
    <InspectorPanel
      title="contact inspector"
      testId="contact-inspector"
      rows={rows}
      onClose={() => set({ contact: null })}
    />
  );
}

/** a titled table of label / value rows with a close button */
function InspectorPanel(props: {
  title: string;
  testId: string;
  rows: [string, string][];
  onClose: () => void;
  className?: string;
  footer?: string;
}) {
  return (
    <div className={`inspector${props.className ? ` ${props.className}` : ''}`} data-testid={props.testId}>
      <div className="inspector-head">
        <strong>{props.title}</strong>
        <button onClick={props.onClose}>close</button>
      </div>
      <table>
        <tbody>
          {props.rows.map(([k, val]) => (
            <tr key={k}>
              <td>{k}</td>
              <td>{val}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.footer ? <div className="muted">{props.footer}</div> : null}
    </div>
  );
}

/** the refresh period of the body inspector's numbers [ms] */
const BODY_INSPECTOR_MS = 250;

/**
 * The selected body, its joint and the joint's live state and constraint efforts (limit, drive,
 * friction; read back from either backend), refreshed a few times a second from the latest frame
 */
export function BodyInspector() {
  const selection = useStudio((s) => s.selection);
  const scene = useStudio((s) => s.scene);
  const set = useStudio((s) => s.set);
  const [rows, setRows] = useState<InspectorRow[]>([]);
  useEffect(() => {
    if (selection === null || !scene) return;
    const refresh = () => setRows(bodyInspectorRows(scene, selection, client.latest.joints));
    refresh();
    const id = setInterval(refresh, BODY_INSPECTOR_MS);
    return () => clearInterval(id);
  }, [selection, scene]);
  if (selection === null || !scene || selection >= scene.body_count) return null;
  return (
    <InspectorPanel
      title="body inspector"
      testId="body-inspector"
      className="body-inspector"
      rows={rows}
      onClose={() => set({ selection: null })}
      footer="efforts of the last step taken · click empty space to deselect"
    />
  );
}

/** history scrubber: seeks the worker's history ring (pauses) */
export function Timeline() {
  const stats = useStudio((s) => s.stats);
  const playing = useStudio((s) => s.playing);
  const [drag, setDrag] = useState<number | null>(null);
  const h = stats?.history;
  if (!stats || !h || !Number.isFinite(h.first_step)) return <div className="timeline" />;
  const value = drag ?? stats.step;
  return (
    <div className="timeline" data-testid="timeline">
      <button onClick={() => send({ type: playing ? 'pause' : 'play' })} data-testid="play-toggle">
        {playing ? '❚❚ pause' : '▶ play'}
      </button>
      <span className="muted">history</span>
      <input
        type="range"
        aria-label="history"
        min={h.first_step}
        max={Math.max(h.last_step, h.first_step + 1)}
        step={1}
        value={value}
        onChange={(e) => {
          const s = Number(e.currentTarget.value);
          setDrag(s);
          send({ type: 'seek', step: s });
        }}
        onPointerUp={() => setDrag(null)}
        onKeyUp={() => setDrag(null)}
      />
      <span className="clock" data-testid="clock">
        t = {timeAtStep(value, stats).toFixed(3)} s · step {value}
      </span>
      <SequenceBadge />
      <span className="muted">{client.transport === 'ring' ? 'poses: shared ring' : 'poses: message'}</span>
      <RecordControls />
    </div>
  );
}

export function DropZone() {
  const [over, setOver] = useState(false);
  useEffect(() => {
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      depth++;
      setOver(true);
    };
    const leave = () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const overFn = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      e.preventDefault();
      depth = 0;
      setOver(false);
      if (!e.dataTransfer) return;
      filesFromDrop(e.dataTransfer)
        .then((items) => loadFiles(items))
        .catch((err: DropError | Error) =>
          useStudio.getState().pushError({
            code: 'load',
            file: 'file' in err ? err.file : undefined,
            message: err.message,
          }),
        );
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', overFn);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', overFn);
      window.removeEventListener('drop', drop);
    };
  }, []);
  return over ? (
    <div className="dropzone" data-testid="dropzone">
      drop scene files (.yaml, .json), URDF, MJCF, USD, folders or .zip archives
    </div>
  ) : null;
}
