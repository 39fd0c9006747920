/**
 * Trajectory export from the studio: asks the worker for its history ring (`export_trajectory`),
 * writes the steps as CSV or JSON (engine/worker/trajectory_table.ts) and downloads the file, named
 * after the model and the time.
 */
import type { TrajectoryDump } from '../../engine/worker/protocol';
import { trajectoryCsv, trajectoryJson } from '../../engine/worker/trajectory_table';
import { downloadBlob, stampedFileName } from '../download';
import { send } from '../session';
import { useStudio } from '../store';
import { onWorkerEvent } from '../worker_events';

export type TrajectoryFormat = 'csv' | 'json';

let nextRequest = 1;
/** how long an export may wait for the worker [ms] */
const ANSWER_TIMEOUT_MS = 30_000;

/** the worker's history ring, or an error when it does not answer (no scene, a dead worker) */
export function requestTrajectory(): Promise<TrajectoryDump> {
  const request_id = nextRequest++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error('the worker did not send the trajectory in time'));
    }, ANSWER_TIMEOUT_MS);
    const off = onWorkerEvent((e) => {
      if (e.type === 'trajectory_export' && e.request_id === request_id) {
        clearTimeout(timer);
        off();
        resolve(e.trajectory);
      } else if (e.type === 'error' && e.error.code === 'export_trajectory') {
        clearTimeout(timer);
        off();
        reject(new Error(e.error.message));
      }
    });
    send({ type: 'export_trajectory', request_id });
  });
}

/** the newest export's rows (step × world) and file name, for the panel's note and for tests */
export const lastExport: { name: string; rows: number; steps: number; bytes: number } = {
  name: '',
  rows: 0,
  steps: 0,
  bytes: 0,
};

/** fetches the history and downloads it as `<model>-<time>.trajectory.<csv|json>`; returns the file name */
export async function exportTrajectory(format: TrajectoryFormat): Promise<string> {
  const scene = useStudio.getState().scene;
  if (!scene) throw new Error('no scene is loaded: there is no trajectory to export');
  const dump = await requestTrajectory();
  const chunks = format === 'csv' ? trajectoryCsv(dump, scene) : trajectoryJson(dump, scene);
  const blob = new Blob(chunks, { type: format === 'csv' ? 'text/csv' : 'application/json' });
  const name = stampedFileName(scene.name, `trajectory.${format}`);
  Object.assign(lastExport, {
    name,
    steps: dump.step.length,
    rows: dump.step.length * dump.num_worlds,
    bytes: blob.size,
  });
  downloadBlob(name, blob);
  return name;
}
