/**
 * leva panels: scene, solver (every option of SPEC §3.6, applied live), simulation, view, control and
 * stats. Controls post commands from `onChange` when the edit comes from the panel; values that the
 * worker reports back (effective options, stats) are written into the panel with `set`.
 */
import { LevaInputs, button, buttonGroup, folder, useControls } from 'leva';
import { useEffect, useMemo } from 'react';
import { SOLVER_OPTION_KEYS, allowedValues, resolveSolverOptions } from '../../engine/index';
import { backToLoadedPatch, optionPatch, overridesKeptNotice } from './option_patch';
import { CATALOG, DEFAULT_SCENE } from '../catalog';
import { copyLink, loadCatalog, send, setBackend, setPlaying, setStrict, viewport } from '../session';
import { setGhost } from '../ghost';
import { useStudio, type ViewState } from '../store';
import type { BackendInfo } from '../../engine/worker/protocol';
import { STAGE_LABELS, stageRows, type StageLabel } from './stage_times';

const INTEGER_KEYS = new Set(['line_search_max_iterations', 'max_iterations', 'max_rigid_contact']);
const BOOLEAN_KEYS = new Set(['use_f64_boundary_pose', 'solve_islands']);
/** the scene menu's entry while the scene came from a file, a folder or a URL */
export const OPENED_FILE = '(an opened file)';
/** the keyframe menu's entry for the model's own reference pose (no keyframe) */
export const REFERENCE_POSE = 'qpos0 (reference pose)';

/** per preset: its position update and what it does to energy (the preset's hint; README) */
export const PRESET_INTEGRATION: Record<string, string> = {
  approx32:
    'approx32: midpoint q₁ = q₀ + h·(v₀ + v₁)/2; an undamped oscillation gains (1 + h²ω²/2) energy per step',
  approx64:
    'approx64: midpoint q₁ = q₀ + h·(v₀ + v₁)/2; an undamped oscillation gains (1 + h²ω²/2) energy per step',
  drake: 'drake: q₁ = q₀ + h·v₁ (semi-implicit Euler); energy stays in an O(h·ω) band, no drift',
};

/** a number as the panel shows it: compact, exact enough to round-trip */
export function formatNumber(x: number): string {
  if (x === 0) return '0';
  const a = Math.abs(x);
  return a >= 1e-3 && a < 1e6 ? String(Number(x.toPrecision(12))) : x.toExponential().replace('e+', 'e');
}

function panelValue(key: string, v: unknown): unknown {
  if (typeof v === 'number' && !INTEGER_KEYS.has(key)) return formatNumber(v);
  return v;
}

export function ScenePanel({ openFiles, openFolder }: { openFiles: () => void; openFolder: () => void }) {
  const sceneRef = useStudio((s) => s.sceneRef);
  const [, set] = useControls(
    'scene',
    () => ({
      catalog: {
        // after a file, folder or link URL loads, the menu says so instead of naming a built-in scene
        options: { [OPENED_FILE]: '', ...Object.fromEntries(CATALOG.map((c) => [c.id, c.id])) },
        value: DEFAULT_SCENE,
        onChange: (v: string, _p: string, ctx: { fromPanel: boolean; initial: boolean }) => {
          if (ctx.fromPanel && !ctx.initial && v) void loadCatalog(v);
        },
      },
      'open file…': button(() => openFiles()),
      'open folder…': button(() => openFolder()),
      // lenient by default: approximated features are warnings; strict refuses them (the scene reloads)
      'strict loading': {
        value: false,
        onChange: (v: boolean, _p: string, ctx: { fromPanel: boolean; initial: boolean }) => {
          if (ctx.fromPanel && !ctx.initial) setStrict(v);
        },
      },
      'copy link': button(() => void copyLink()),
    }),
    { order: 0 },
  );
  useEffect(() => {
    if (sceneRef) set({ catalog: sceneRef.kind === 'catalog' ? sceneRef.id : '' });
  }, [sceneRef, set]);
  return null;
}

export function SolverPanel() {
  const options = useStudio((s) => s.options);
  const schema = useMemo(() => {
    const defaults = resolveSolverOptions({}) as unknown as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of SOLVER_OPTION_KEYS) {
      const onChange = (v: unknown, _p: string, ctx: { fromPanel: boolean; initial: boolean }) => {
        if (!ctx.fromPanel || ctx.initial) return;
        send({ type: 'set_options', options: optionPatch(key, v) });
        if (key === 'contact_preset_variant') {
          const note = overridesKeptNotice(String(v), useStudio.getState().options?.explicit ?? {});
          if (note) useStudio.getState().set({ notice: note });
        }
      };
      const allowed = allowedValues(key);
      if (key === 'contact_preset_variant' && allowed)
        out[key] = {
          options: [...allowed],
          value: defaults[key],
          onChange,
          hint: allowed.map((p) => PRESET_INTEGRATION[p] ?? p).join('\n'),
        };
      else if (allowed) out[key] = { options: [...allowed], value: defaults[key], onChange };
      else if (BOOLEAN_KEYS.has(key)) out[key] = { value: defaults[key], onChange };
      else if (INTEGER_KEYS.has(key)) out[key] = { value: defaults[key], step: 1, min: 0, onChange };
      else out[key] = { value: panelValue(key, defaults[key]), type: LevaInputs.STRING, onChange };
    }
    out['overrides'] = { value: '', editable: false, rows: 3, type: LevaInputs.STRING };
    out['back to scene options'] = button(() => {
      const st = useStudio.getState();
      send({ type: 'set_options', options: backToLoadedPatch(st.options?.explicit ?? {}, st.loadedOptions) });
    });
    return out;
  }, []);
  const [, set] = useControls('solver', () => schema as never, { order: 1 });
  useEffect(() => {
    if (!options) return;
    const values: Record<string, unknown> = {};
    for (const key of SOLVER_OPTION_KEYS) {
      if (key in options.effective) values[key] = panelValue(key, options.effective[key]);
    }
    const ov = Object.entries(options.explicit)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ');
    values.overrides = ov || '(none)';
    set(values as never);
  }, [options, set]);
  return null;
}

/** short names of the precision knobs, for the backend's realization line */
const PRECISION_SHORT: Record<string, string> = {
  free_motion_solve_precision: 'free motion',
  contact_solve_precision: 'contact',
  contact_linear_solve_precision: 'linear',
  sap_contact_weight_precision: 'weights',
};

/** the panel's read-outs of a backend status */
export function backendLines(b: BackendInfo | null): { active: string; adapter: string; precision: string } {
  if (!b) return { active: '—', adapter: '—', precision: '—' };
  const active = b.pending
    ? `${b.active} (starting ${b.requested}…)`
    : b.fallback
      ? `${b.active} (fallback)`
      : b.active;
  const precision = Object.entries(b.precision)
    .map(([k, v]) => `${PRECISION_SHORT[k] ?? k} ${v}`)
    .join(', ');
  return {
    active,
    adapter: b.adapter ?? (b.requested === 'webgpu' ? 'none' : '—'),
    precision: precision || '—',
  };
}

export function SimulationPanel() {
  const scene = useStudio((s) => s.scene);
  const backend = useStudio((s) => s.backend);
  const choice = useStudio((s) => s.backendChoice);
  const [, set] = useControls(
    'simulation',
    () => ({
      run: buttonGroup({
        play: () => setPlaying(true),
        pause: () => setPlaying(false),
        step: () => {
          setPlaying(false);
          send({ type: 'step', n: 1 });
        },
        reset: () => send({ type: 'reset' }),
      }),
      speed: {
        value: 1,
        min: 0.05,
        max: 4,
        step: 0.05,
        onChange: (v: number, _p: string, ctx: { fromPanel: boolean; initial: boolean }) => {
          if (!ctx.fromPanel || ctx.initial) return;
          useStudio.getState().set({ speed: v });
          send({ type: 'set_sim', speed: v });
        },
      },
      dt: {
        value: '0.005',
        type: LevaInputs.STRING,
        onChange: (v: string, _p: string, ctx: { fromPanel: boolean; initial: boolean }) => {
          if (!ctx.fromPanel || ctx.initial) return;
          const dt = Number(v);
          if (!(dt > 0 && dt <= 1)) {
            useStudio
              .getState()
              .pushError({ code: 'input', message: `simulation.dt: '${v}' is not a step size in (0, 1] s` });
            return;
          }
          send({ type: 'set_sim', dt });
        },
      },
      num_worlds: {
        options: [1, 2, 4, 8, 16, 32, 64],
        value: 1,
        onChange: (v: number, _p: string, ctx: { fromPanel: boolean; initial: boolean }) => {
          if (!ctx.fromPanel || ctx.initial) return;
          send({ type: 'reload', num_worlds: Number(v) });
        },
      },
      backend: {
        options: ['cpu', 'webgpu'],
        value: 'cpu',
        hint: 'step backend; collision stays on the CPU. WebGPU falls back to the CPU with a reason.',
        onChange: (v: string, _p: string, ctx: { fromPanel: boolean; initial: boolean }) => {
          if (!ctx.fromPanel || ctx.initial) return;
          setBackend(v === 'webgpu' ? 'webgpu' : 'cpu');
        },
      },
      'active backend': { value: '—', editable: false, type: LevaInputs.STRING },
      adapter: { value: '—', editable: false, type: LevaInputs.STRING },
      precision: {
        value: '—',
        editable: false,
        type: LevaInputs.STRING,
        hint: 'how the precision knobs run on the active backend; fp64 on WebGPU is emulated (df64)',
      },
      'ablation every': {
        value: 10,
        min: 0,
        max: 1000,
        step: 1,
        hint: 'one-step Δprecision / Δmodel sample every N steps (0: off)',
        onChange: (v: number, _p: string, ctx: { fromPanel: boolean; initial: boolean }) => {
          if (!ctx.fromPanel || ctx.initial) return;
          send({ type: 'request_ablation', every: Math.max(0, Math.round(v)) });
        },
      },
    }),
    { order: 2 },
  );
  useEffect(() => {
    if (scene) set({ dt: formatNumber(scene.dt), num_worlds: scene.num_worlds } as never);
  }, [scene, set]);
  // an MJCF file's keyframes: choosing one reloads the scene starting from it (reset returns there)
  const keyframes = useMemo(() => scene?.keyframes ?? [], [scene]);
  const [, setKey] = useControls(
    'simulation',
    () => ({
      keyframe: {
        options: { [REFERENCE_POSE]: '', ...Object.fromEntries(keyframes.map((k) => [k, k])) },
        value: '',
        hint: 'the MJCF <key> the simulation starts from (reset returns to it); reloads the scene',
        render: () => keyframes.length > 0,
        onChange: (v: string, _p: string, ctx: { fromPanel: boolean; initial: boolean }) => {
          if (!ctx.fromPanel || ctx.initial) return;
          send({ type: 'reload', keyframe: v === '' ? null : v });
        },
      },
    }),
    { order: 2 },
    [keyframes],
  );
  useEffect(() => {
    if (scene) setKey({ keyframe: scene.keyframe ?? '' } as never);
  }, [scene, setKey]);
  useEffect(() => {
    const l = backendLines(backend);
    set({ backend: choice, 'active backend': l.active, adapter: l.adapter, precision: l.precision } as never);
  }, [backend, choice, set]);
  return null;
}

/** the view panel's control for each view setting */
const VIEW_CONTROLS: Record<keyof ViewState, string> = {
  visual: 'visual geometry',
  collision: 'collision geometry',
  overlay: 'contact overlay',
  islands: 'colour by island',
  normals: 'normals',
  forces: 'forces',
  force_scale: 'force scale (m/N)',
  shadows: 'shadows',
  follow: 'follow',
  ghost: 'MuJoCo ghost',
};

export function ViewPanel() {
  const view = useStudio((s) => s.view);
  const [, set, get] = useControls(
    'view',
    () => ({
      'visual geometry': {
        value: true,
        onChange: (v: boolean) => useStudio.getState().setView({ visual: v }),
      },
      'collision geometry': {
        value: false,
        onChange: (v: boolean) => useStudio.getState().setView({ collision: v }),
      },
      'contact overlay': {
        value: false,
        onChange: (v: boolean) => {
          useStudio.getState().setView({ overlay: v });
          send({ type: 'set_sim', contacts: v });
        },
      },
      'colour by island': {
        value: false,
        onChange: (v: boolean) => {
          useStudio.getState().setView({ islands: v });
          send({ type: 'set_sim', islands: v });
        },
      },
      normals: { value: true, onChange: (v: boolean) => useStudio.getState().setView({ normals: v }) },
      forces: { value: true, onChange: (v: boolean) => useStudio.getState().setView({ forces: v }) },
      'force scale (m/N)': {
        value: 0.01,
        min: 0.0001,
        max: 1,
        onChange: (v: number) => useStudio.getState().setView({ force_scale: v }),
      },
      shadows: { value: true, onChange: (v: boolean) => useStudio.getState().setView({ shadows: v }) },
      camera: buttonGroup({
        'frame all': () => viewport.handle?.frameAll(),
        'frame selected': () => viewport.handle?.frameSelected(),
      }),
      follow: {
        value: false,
        hint: 'the camera moves with the selected body (the first body when none is selected)',
        onChange: (v: boolean) => useStudio.getState().setView({ follow: v }),
      },
      'MuJoCo ghost': {
        value: false,
        hint: 'MuJoCo (WebAssembly) beside SAP from the same state, controls and dt, drawn translucent; ‖Δq‖ in the trajectory chart (g)',
        onChange: (v: boolean) => setGhost(v),
      },
    }),
    { order: 3 },
  );
  // settings that arrive from elsewhere (a link) show in the panel
  useEffect(() => {
    const patch: Record<string, unknown> = {};
    for (const [key, control] of Object.entries(VIEW_CONTROLS)) {
      const v = view[key as keyof ViewState];
      if (get(control as never) !== v) patch[control] = v;
    }
    if (Object.keys(patch).length) set(patch as never);
  }, [view, set, get]);
  return null;
}

/** the joint and actuator panel (ControlPanel.tsx) */
export { ControlPanel } from './ControlPanel';

/** the stats panel's read-only stage rows */
function stageFields() {
  const fields = {} as Record<StageLabel, { value: string; editable: false; type: LevaInputs.STRING }>;
  for (const l of STAGE_LABELS) fields[l] = { value: '—', editable: false, type: LevaInputs.STRING };
  return fields;
}

export function StatsPanel() {
  const stats = useStudio((s) => s.stats);
  const fields = {
    time: { value: '0', editable: false, type: LevaInputs.STRING },
    status: { value: '—', editable: false, type: LevaInputs.STRING },
    'Newton iterations': { value: '0', editable: false, type: LevaInputs.STRING },
    'line-search iterations': { value: '0', editable: false, type: LevaInputs.STRING },
    contacts: { value: '0', editable: false, type: LevaInputs.STRING },
    'step time': { value: '0', editable: false, type: LevaInputs.STRING },
    'real-time factor': { value: '0', editable: false, type: LevaInputs.STRING },
    // mean wall time per step of each pipeline stage and its share
    'stage times': folder(stageFields(), { collapsed: true }),
  };
  const [, set] = useControls('stats', () => fields, { order: 5 });
  useEffect(() => {
    if (!stats) return;
    set({
      time: `${stats.time.toFixed(3)} s (step ${stats.step})`,
      status: stats.status,
      'Newton iterations':
        `${stats.iterations.toFixed(1)} (max ${stats.iterations_max}` +
        (stats.islands > 0 ? `; ${stats.islands} islands, max over them)` : ')'),
      'line-search iterations': String(stats.line_search_iterations),
      contacts:
        stats.truncated > 0 ? `${stats.contacts} (+${stats.truncated} truncated)` : String(stats.contacts),
      'step time': `${stats.step_ms.toFixed(2)} ms`,
      'real-time factor': stats.playing
        ? `${stats.realtime_factor.toFixed(2)} (target ${stats.speed})`
        : 'paused',
      ...stageRows(stats.stage_ms, stats.stages_queued),
    });
  }, [stats, set]);
  return null;
}
