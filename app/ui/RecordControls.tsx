/**
 * The timeline's recording and export controls: record the viewport (`v`; a red dot and the elapsed
 * time while it runs, the container to record in) and download the history's trajectory (q, v per
 * step and world) as CSV or JSON.
 */
import { useEffect, useMemo, useState } from 'react';
import { HISTORY_MAX_BYTES, HISTORY_MAX_STEPS } from '../../engine/worker/history';
import { exportTrajectory, type TrajectoryFormat } from '../recording/trajectory_export';
import {
  formatElapsed,
  recordableContainers,
  toggleRecording,
  type VideoContainer,
} from '../recording/video';
import { useStudio } from '../store';

function RecordButton() {
  const recording = useStudio((s) => s.recording);
  const format = useStudio((s) => s.recordFormat);
  const containers = useMemo(() => recordableContainers(), []);
  const [, tick] = useState(0);
  useEffect(() => {
    if (!recording) return;
    const id = setInterval(() => tick((n) => n + 1), 250);
    return () => clearInterval(id);
  }, [recording]);
  const chosen: VideoContainer | undefined = format ?? containers[0];
  return (
    <span className="record">
      <button
        className={recording ? 'record-button on' : 'record-button'}
        data-testid="record-button"
        disabled={!recording && containers.length === 0}
        title={
          containers.length === 0
            ? 'this browser cannot record the canvas'
            : recording
              ? 'stop recording and download the video (v)'
              : 'record the viewport to a video file (v)'
        }
        onClick={() => toggleRecording(chosen)}
      >
        <span className="record-dot" aria-hidden="true" />
        rec
        {recording && (
          <span data-testid="record-elapsed">{formatElapsed(performance.now() - recording.since)}</span>
        )}
      </button>
      {containers.length > 1 && (
        <select
          aria-label="video format"
          data-testid="record-format"
          value={chosen}
          disabled={recording !== null}
          onChange={(e) =>
            useStudio.getState().set({ recordFormat: e.currentTarget.value as VideoContainer })
          }
        >
          {containers.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      )}
    </span>
  );
}

function TrajectoryButtons() {
  const stats = useStudio((s) => s.stats);
  const h = stats?.history;
  const held = h && Number.isFinite(h.first_step) ? h.last_step - h.first_step + 1 : 0;
  const [busy, setBusy] = useState(false);
  const run = (format: TrajectoryFormat) => {
    setBusy(true);
    exportTrajectory(format)
      .catch((e: unknown) =>
        useStudio
          .getState()
          .set({ notice: `trajectory export failed: ${e instanceof Error ? e.message : e}` }),
      )
      .finally(() => setBusy(false));
  };
  const title =
    `q and v of every joint per step and world, from the history: its newest steps, at most ` +
    `${HISTORY_MAX_STEPS.toLocaleString('en')} steps and ${HISTORY_MAX_BYTES / 2 ** 20} MiB (${held} now)`;
  return (
    <span className="trajectory-export" title={title}>
      <span className="muted" data-testid="trajectory-bound">
        q,v ≤{HISTORY_MAX_STEPS} steps
      </span>
      <button data-testid="export-trajectory-csv" disabled={busy} onClick={() => run('csv')}>
        CSV
      </button>
      <button data-testid="export-trajectory-json" disabled={busy} onClick={() => run('json')}>
        JSON
      </button>
    </span>
  );
}

export function RecordControls() {
  return (
    <>
      <RecordButton />
      <TrajectoryButtons />
    </>
  );
}
