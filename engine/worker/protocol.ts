/**
 * Worker protocol (SPEC §7), versioned. Commands go main → worker, events worker → main.
 * Poses travel as flat Float32Array frames (7 floats per body: p, q xyzw), transferred.
 * This first version carries load / play / pause / step / reset / set options; the studio issue
 * extends it (seek, perturb, control, ablation, SharedArrayBuffer ring).
 */
export const PROTOCOL_VERSION = 1;

export type Command =
  | { v: 1; type: 'load_scene'; text: string; file_name: string }
  | { v: 1; type: 'set_options'; options: Record<string, unknown> }
  | { v: 1; type: 'play' }
  | { v: 1; type: 'pause' }
  | { v: 1; type: 'step'; n: number }
  | { v: 1; type: 'reset' };

export interface SceneInfo {
  name: string;
  dt: number;
  num_worlds: number;
  body_count: number;
  body_label: string[];
  /** per shape: type, body, size (3), pose in body (7), colour (3) */
  shapes: { type: number; body: number; size: number[]; X_bs: number[]; color: number[] }[];
  options: Record<string, unknown>;
}

export type WorkerEvent =
  | { v: 1; type: 'ready'; scene: SceneInfo }
  | { v: 1; type: 'frame'; time: number; poses: Float32Array; contacts: number }
  | {
      v: 1;
      type: 'stats';
      time: number;
      status: string;
      iterations: number;
      line_search_iterations: number;
      contacts: number;
      truncated: number;
      step_ms: number;
    }
  | { v: 1; type: 'error'; message: string; where?: string };

/** validates an untrusted message as a Command; returns an error string when malformed */
export function checkCommand(msg: unknown): string | null {
  if (typeof msg !== 'object' || msg === null) return 'command must be an object';
  const m = msg as Record<string, unknown>;
  if (m.v !== PROTOCOL_VERSION) return `protocol version ${String(m.v)} is not ${PROTOCOL_VERSION}`;
  switch (m.type) {
    case 'load_scene':
      return typeof m.text === 'string' && typeof m.file_name === 'string'
        ? null
        : 'load_scene needs text and file_name';
    case 'set_options':
      return typeof m.options === 'object' && m.options !== null ? null : 'set_options needs options';
    case 'step':
      return Number.isInteger(m.n) && (m.n as number) > 0 && (m.n as number) <= 100000
        ? null
        : 'step needs 0 < n ≤ 100000';
    case 'play':
    case 'pause':
    case 'reset':
      return null;
    default:
      return `unknown command type '${String(m.type)}'`;
  }
}
