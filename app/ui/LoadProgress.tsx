/**
 * What a load is doing: reading the dropped files (n of N), then the worker's phases (model files,
 * meshes with their hulls, textures, building the model, preparing the simulation), the time since
 * it began, and a cancel button (the current scene keeps running). Shown after a quarter second, so
 * quick loads do not flicker.
 */
import { useEffect, useState } from 'react';
import { cancelLoad } from '../session';
import { useStudio } from '../store';

const PHASE_LABEL: Record<string, string> = {
  read: 'reading the dropped files',
  files: 'reading model files',
  meshes: 'meshes and convex hulls',
  textures: 'textures',
  model: 'building the model',
  simulation: 'preparing the simulation',
};
const SHOW_AFTER_MS = 250;

export function LoadProgress() {
  const loading = useStudio((s) => s.loading);
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    if (!loading) return;
    const t = setInterval(() => setNow(performance.now()), 200);
    return () => clearInterval(t);
  }, [loading]);
  if (!loading || now - loading.since < SHOW_AFTER_MS) return null;
  const counted = loading.phase === 'read' || loading.phase === 'meshes' || loading.phase === 'textures';
  const fraction = counted && loading.total > 0 ? Math.min(1, loading.done / loading.total) : null;
  return (
    <div className="load-progress" role="status" data-testid="load-progress" data-phase={loading.phase}>
      <div>
        loading <strong>{loading.name.slice(loading.name.lastIndexOf('/') + 1)}</strong>:{' '}
        <span data-testid="load-phase">
          {PHASE_LABEL[loading.phase] ?? loading.phase}
          {counted ? ` ${loading.done} / ${loading.total}` : ''}
        </span>{' '}
        <span className="muted">· {((now - loading.since) / 1000).toFixed(1)} s</span>
      </div>
      {loading.file && <div className="muted load-file">{loading.file}</div>}
      <div className="load-bar">
        <div
          className={fraction === null ? 'load-bar-fill busy' : 'load-bar-fill'}
          style={{ width: `${Math.round((fraction ?? 1) * 100)}%` }}
        />
      </div>
      <button onClick={cancelLoad} data-testid="load-cancel">
        cancel
      </button>
    </div>
  );
}
