/**
 * Commanding the robot: a joint and actuator panel for world 0's revolute and prismatic joints —
 * target sliders (within the joint's limits) for driven joints, effort sliders (within the effort
 * limit) for the others, the live coordinate of each — plus "hold pose" for drive-less models and
 * the control sequence's take-over. Edits go to the worker as `set_control` (every world); live
 * values are written into the DOM from the latest frame in a requestAnimationFrame loop, never
 * through React state (the store holds only the slow `stats.control` status).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DofInfo, SceneInfo } from '../../engine/worker/protocol';
import { client, send } from '../session';
import { useStudio } from '../store';

/** a slider's range when the joint has no finite limit: ±π rad (or m) for targets */
const FREE_TARGET_RANGE = Math.PI;
/** an effort slider's range when the DOF has no finite effort limit [N·m or N] */
const FREE_EFFORT_RANGE = 50;

/** one row of the panel */
export interface JointRow {
  dof: number;
  label: string;
  /** index of the joint's coordinate in a frame's `joints.q` */
  coord: number;
  mode: 'target' | 'effort';
  min: number;
  max: number;
  value: number;
}

/** the panel's rows for a scene (hold: every joint is driven) */
export function jointRows(scene: SceneInfo, hold: boolean): JointRow[] {
  const coordOf = new Map<number, number>();
  for (let j = 0; j + 1 < scene.joint_qd_start.length; j++) {
    if (scene.joint_qd_start[j + 1] - scene.joint_qd_start[j] === 1)
      coordOf.set(scene.joint_qd_start[j], scene.joint_q_start[j]);
  }
  return scene.dofs.map((d: DofInfo) => {
    const coord = coordOf.get(d.dof) ?? d.dof;
    if (d.driven || hold) {
      const lo = Number.isFinite(d.lower) ? d.lower : -FREE_TARGET_RANGE;
      const hi = Number.isFinite(d.upper) ? d.upper : FREE_TARGET_RANGE;
      return {
        dof: d.dof,
        label: d.label,
        coord,
        mode: 'target',
        min: lo,
        max: hi,
        value: clamp(d.target, lo, hi),
      };
    }
    const lim = scene.dof_effort_limit[d.dof];
    const r = Number.isFinite(lim) && lim > 0 ? lim : FREE_EFFORT_RANGE;
    return { dof: d.dof, label: d.label, coord, mode: 'effort', min: -r, max: r, value: 0 };
  });
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const short = (label: string) => label.slice(label.lastIndexOf('/') + 1);

/** the timeline's control-sequence badge: name, time, keyframe, and take over / resume */
export function SequenceBadge() {
  const seq = useStudio((s) => s.scene?.control_sequence ?? null);
  const status = useStudio((s) => s.stats?.control?.sequence ?? null);
  if (!seq) return null;
  const playing = status?.playing ?? true;
  const raw = status?.time ?? 0;
  const t = seq.loop && seq.duration > 0 ? raw % seq.duration : Math.min(raw, seq.duration);
  return (
    <span className="sequence" data-testid="sequence" data-playing={playing ? 'true' : 'false'}>
      <span className="muted">sequence</span> {seq.name} · {t.toFixed(1)}/{seq.duration.toFixed(1)} s
      {status?.keyframe ? ` · ${status.keyframe}` : ''}
      <button data-testid="sequence-toggle" onClick={() => (playing ? takeOver() : resumeSequence())}>
        {playing ? 'take over' : 'resume sequence'}
      </button>
    </span>
  );
}

/** stops the sequence and holds the driven joints where they are: the sliders command from there */
export function takeOver(): void {
  send({ type: 'control_sequence', playing: false });
  const scene = useStudio.getState().scene;
  const j = client.latest.joints;
  if (!scene || !j) return;
  const rows = jointRows(scene, useStudio.getState().stats?.control?.hold ?? false).filter(
    (r) => r.mode === 'target',
  );
  send({
    type: 'set_control',
    field: 'joint_target_pos',
    dofs: rows.map((r) => r.dof),
    values: rows.map((r) => clamp(j.q[r.coord] ?? r.value, r.min, r.max)),
    all_worlds: true,
  });
  window.dispatchEvent(new CustomEvent('sap-control-sync'));
}

export function resumeSequence(): void {
  send({ type: 'control_sequence', playing: true });
}

export function ControlPanel() {
  const scene = useStudio((s) => s.scene);
  const hold = useStudio((s) => s.stats?.control?.hold ?? false);
  const seqPlaying = useStudio((s) => (s.stats?.control?.sequence?.playing ?? false) === true);
  // collapsed by default: open, the frames carry the joint state for the live values
  const [open, setOpen] = useState(false);
  const rows = useMemo(() => (scene ? jointRows(scene, hold) : []), [scene, hold]);
  const live = useRef<(HTMLSpanElement | null)[]>([]);
  const sliders = useRef<(HTMLInputElement | null)[]>([]);
  const drivenless = rows.length > 0 && scene !== null && scene.dofs.every((d) => !d.driven);
  const visible = rows.length > 0;

  // frames carry the joint state while the panel is open
  useEffect(() => {
    useStudio.getState().set({ jointPanel: visible && open });
    return () => useStudio.getState().set({ jointPanel: false });
  }, [visible, open]);

  // live values: the latest frame's coordinates, written into the DOM each animation frame
  useEffect(() => {
    if (!visible || !open) return;
    let id = 0;
    const tick = () => {
      const j = client.latest.joints;
      rows.forEach((r, i) => {
        const el = live.current[i];
        if (el && j) el.textContent = (j.q[r.coord] ?? NaN).toFixed(3);
      });
      id = requestAnimationFrame(tick);
    };
    id = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(id);
  }, [rows, visible, open]);

  // after a take-over the target sliders show the held pose
  useEffect(() => {
    const sync = () => {
      const j = client.latest.joints;
      if (!j) return;
      rows.forEach((r, i) => {
        const el = sliders.current[i];
        if (el && r.mode === 'target') el.value = String(clamp(j.q[r.coord] ?? r.value, r.min, r.max));
      });
    };
    window.addEventListener('sap-control-sync', sync);
    return () => window.removeEventListener('sap-control-sync', sync);
  }, [rows]);

  if (!scene || !visible) return null;
  const onInput = (r: JointRow, v: number) => {
    if (r.mode === 'target' && seqPlaying) takeOver();
    send({
      type: 'set_control',
      field: r.mode === 'target' ? 'joint_target_pos' : 'joint_f',
      dofs: [r.dof],
      values: [v],
      all_worlds: true,
    });
  };
  return (
    <div className="joint-panel" data-testid="joint-panel">
      <div className="joint-panel-head">
        <button className="linklike" onClick={() => setOpen(!open)} data-testid="joint-panel-toggle">
          {open ? '▾' : '▸'} joints ({rows.length})
        </button>
        {drivenless || hold ? (
          <button
            data-testid="hold-pose"
            data-on={hold ? 'true' : 'false'}
            title="PD on every joint at the current pose, gains from each joint's effective inertia"
            onClick={() => send({ type: 'hold_pose', on: !hold })}
          >
            {hold ? 'release pose' : 'hold pose'}
          </button>
        ) : null}
      </div>
      {open ? (
        <table>
          <tbody>
            {rows.map((r, i) => (
              <tr key={`${r.dof}-${r.mode}`} data-dof={r.dof} data-coord={r.coord} data-mode={r.mode}>
                <td title={r.label}>{short(r.label)}</td>
                <td className="muted">{r.mode === 'target' ? 'target' : 'effort'}</td>
                <td>
                  <input
                    type="range"
                    aria-label={`${r.label} ${r.mode}`}
                    data-testid={`joint-slider-${r.dof}`}
                    min={r.min}
                    max={r.max}
                    step={(r.max - r.min) / 1000}
                    defaultValue={r.value}
                    ref={(el) => {
                      sliders.current[i] = el;
                    }}
                    onChange={(e) => onInput(r, Number(e.currentTarget.value))}
                    onKeyDown={(e) => e.stopPropagation()}
                  />
                </td>
                <td className="num">
                  <span
                    ref={(el) => {
                      live.current[i] = el;
                    }}
                  >
                    —
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
