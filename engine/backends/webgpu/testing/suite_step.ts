/**
 * Whole-step parity: the WebGPU backend and the CPU reference run the same scene side by side
 * (each colliding its own state on the CPU) and joint_q, joint_qd, body_q and body_qd must agree
 * at every step. Error measure, per array, normwise relative over the trajectory (its initial state
 * included):
 *   max_steps ‖x_gpu − x_cpu‖∞ / max_steps ‖x_cpu‖∞
 * (per step alone, a velocity passing through 0 would turn a constant absolute error of ~1e-13
 * into an arbitrarily large relative one). The joint constraints' efforts (limit, PD drive, dry
 * friction per DOF, read back from the GPU) are held to the same measure. Tolerance 1e-4 under a preset with fp32 knobs, 1e-10
 * where every knob is fp64 (df64 on the GPU), ×HOLONOMIC_TOL_FACTOR for models with equality
 * constraints, fixed tendons or cone limits (testing/parity.ts). Both backends start Newton from the lower-cost of v_n and its
 * extrapolation when a step continues the last one (the table counts those steps, GPU / CPU). Plus
 * a 1024-world replicated scene whose every world matches an independent CPU run.
 */
import { expect, it } from 'vitest';
import type { SapModel } from '../../../model';
import { resolveSolverOptions } from '../../../sap/options';
import { cloneState, type SapState } from '../../../state';
import { CpuBackend } from '../../cpu/cpu_backend';
import { BackendSimulation } from '../../simulation';
import type { GpuHandle } from '../device';
import { WebGpuBackend } from '../webgpu_backend';
import { HOLONOMIC_TOL_FACTOR, TOL_DF64, TOL_FP32, loadRepoScene, type TestScene } from './parity';
import { equalityScene } from './equality_models';
import { tendonScene } from './tendon_models';
import { coneScene } from './cone_models';
import { mulberry32 } from './rng';
import { PRESETS, arm7OnLimits, arm7WithFriction, lineSearchFor } from './suite_stages';

/** worst whole-step error per scene/preset, printed by the suite */
export const STEP_TABLE: Record<string, Record<string, number | string>> = {};

/** accumulates max ‖Δx‖∞ and max ‖x_ref‖∞ of named arrays over a trajectory */
export class TrajectoryError {
  private num: Record<string, number> = {};
  private den: Record<string, number> = {};

  add(name: string, got: ArrayLike<number>, ref: ArrayLike<number>): void {
    let n = this.num[name] ?? 0;
    let d = this.den[name] ?? 0;
    for (let i = 0; i < ref.length; i++) {
      const e = Math.abs(got[i] - ref[i]);
      n = Number.isFinite(e) ? Math.max(n, e) : Infinity;
      d = Math.max(d, Math.abs(ref[i]));
    }
    this.num[name] = n;
    this.den[name] = d;
  }

  addState(a: SapState, b: SapState): void {
    this.add('joint_q', a.joint_q, b.joint_q);
    this.add('joint_qd', a.joint_qd, b.joint_qd);
    this.add('body_q', a.body_q, b.body_q);
    this.add('body_qd', a.body_qd, b.body_qd);
  }

  /** per array: max error / max reference magnitude (0 when both are 0) */
  errors(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const k of Object.keys(this.num))
      out[k] = this.num[k] === 0 ? 0 : this.num[k] / Math.max(this.den[k], 1e-300);
    return out;
  }

  worst(): number {
    return Math.max(0, ...Object.values(this.errors()));
  }
}

/** the state arrays of world w */
function worldSlice(m: SapModel, s: SapState, w: number): { q: Float64Array; qd: Float64Array } {
  return {
    q: s.joint_q.subarray(m.world_coord_start[w], m.world_coord_start[w + 1]),
    qd: s.joint_qd.subarray(m.world_dof_start[w], m.world_dof_start[w + 1]),
  };
}

/** the scenes of the whole-step tests: repository scenes and the built equality model (one world
 * and three replicated worlds); the test file adds imported models (engine/io is above this layer) */
const STEP_SCENES: StepScene[] = [
  ...['box_stack', 'cartpole', 'arm7'].map((name) => ({ name, load: () => loadRepoScene(name) })),
  { name: 'arm7 + joint friction', load: () => arm7WithFriction() },
  { name: 'arm7 on its limits', load: () => arm7OnLimits() },
  { name: 'equalities', load: () => equalityScene(1) },
  { name: 'equalities×3', load: () => equalityScene(3) },
  { name: 'tendons×3', load: () => tendonScene(3) },
  { name: 'cones×3', load: () => coneScene(3) },
];

/** a whole-step test scene: a name and how to build it */
export interface StepScene {
  name: string;
  load: () => TestScene | Promise<TestScene>;
}

export function wholeStepTests(gpu: () => GpuHandle, steps = 100, extra: StepScene[] = []): void {
  [...STEP_SCENES, ...extra].forEach(({ name, load }, si) => {
    PRESETS.forEach((preset, pi) => {
      const ls = lineSearchFor(si, pi);
      it(`${name} / ${preset} / ${ls}: ${steps} steps match the CPU reference`, async () => {
        const sc = await load();
        const m = sc.model;
        const solver = { ...sc.solver, contact_preset_variant: preset, line_search_variant: ls };
        const o = resolveSolverOptions(solver);
        const tol =
          (o.free_motion_solve_precision === 'fp32' || o.contact_linear_solve_precision === 'fp32'
            ? TOL_FP32
            : TOL_DF64) *
          (m.eq_count + m.tendon_count > 0 || m.joint_cone_mode.some((c) => c !== 0)
            ? HOLONOMIC_TOL_FACTOR
            : 1);
        const gb = new WebGpuBackend(gpu());
        await gb.init(m, { solver, max_rigid_contact: sc.max_rigid_contact });
        const cb = new CpuBackend();
        await cb.init(m, { solver, max_rigid_contact: sc.max_rigid_contact });
        // the joint constraints' efforts are read back and compared too
        gb.track_joint_efforts = true;
        cb.track_joint_efforts = true;
        const simG = new BackendSimulation(m, gb, { dt: sc.dt, max_rigid_contact: sc.max_rigid_contact });
        const simC = new BackendSimulation(m, cb, { dt: sc.dt, max_rigid_contact: sc.max_rigid_contact });
        const err = new TrajectoryError();
        let itMismatch = 0,
          itTotal = 0,
          contacts = 0,
          extrapolatedCpu = 0,
          extrapolatedGpu = 0,
          effortMax = 0,
          limitMax = 0;
        const t0 = performance.now();
        err.addState(simC.state, simC.state);
        try {
          for (let s = 0; s < steps; s++) {
            const rc = await simC.step();
            const rg = await simG.step();
            err.addState(simG.state, simC.state);
            err.add('joint_effort', gb.joint_effort, cb.joint_effort);
            const e = cb.joint_effort;
            for (let k = 0; k < e.length; k++) {
              effortMax = Math.max(effortMax, Math.abs(e[k]));
              if (k % 3 === 0) limitMax = Math.max(limitMax, Math.abs(e[k]));
            }
            for (let w = 0; w < m.num_worlds; w++) {
              if (rg.worlds[w].iterations !== rc.worlds[w].iterations) itMismatch++;
              expect(rg.worlds[w].status, `step ${s}`).toBe(rc.worlds[w].status);
              if (rc.worlds[w].extrapolated_start) extrapolatedCpu++;
              if (rg.worlds[w].extrapolated_start) extrapolatedGpu++;
            }
            itTotal += rc.iterations_mean;
            contacts += rc.contact_count;
          }
        } finally {
          gb.dispose();
        }
        const e = err.errors();
        const worst = err.worst();
        STEP_TABLE[`${name}/${preset}/${ls}`] = {
          joint_q: e.joint_q,
          joint_qd: e.joint_qd,
          body_q: e.body_q,
          body_qd: e.body_qd,
          joint_effort: e.joint_effort,
          tolerance: tol,
          newton_it_mean: +(itTotal / steps).toFixed(2),
          it_mismatch_steps: itMismatch,
          extrapolated_starts: `${extrapolatedGpu} / ${extrapolatedCpu}`,
          contacts_mean: +(contacts / steps).toFixed(1),
          gpu_ms_per_step: +((performance.now() - t0) / steps).toFixed(1),
        };
        expect(worst, `${name}/${preset}/${ls}: worst ${worst}`).toBeLessThanOrEqual(tol);
        // a model with PD drives has efforts to compare (not two arrays of zeros)
        if (m.joint_target_ke.some((k) => k > 0))
          expect(effortMax, `${name}: drive efforts`).toBeGreaterThan(0);
        if (name === 'arm7 on its limits') expect(limitMax, `${name}: limit efforts`).toBeGreaterThan(1);
        // the accelerated warm start runs on the GPU too, on the same kind of steps as on the CPU
        if (extrapolatedCpu > 0) expect(extrapolatedGpu, `${name}/${preset}/${ls}`).toBeGreaterThan(0);
      });
    });
  });
}

/**
 * 1024 replicated worlds of box_at_rest with a different random initial twist per world, so the
 * worlds' contacts and iterations differ: after `steps` GPU steps every world must match the CPU
 * reference (which solves each world on its own), and sampled worlds also a separate one-world
 * CPU simulation started from that world's initial state.
 */
/** prints the whole-step table (register last) */
export function printStepTable(): void {
  it('prints the whole-step parity table', () => {
    console.log('whole-step parity (per array: max_steps ‖Δx‖∞ / max_steps ‖x_cpu‖∞):');
    console.table(STEP_TABLE);
  });
}

export function manyWorldsTest(gpu: () => GpuHandle, worlds = 1024, steps = 4): void {
  it(`${worlds} replicated worlds each match an independent CPU run`, async () => {
    const preset = 'approx64';
    const sc = loadRepoScene('box_at_rest', worlds);
    const m = sc.model;
    const solver = { ...sc.solver, contact_preset_variant: preset };
    const rnd = mulberry32(7);
    const init = (s: SapState) => {
      for (let w = 0; w < m.num_worlds; w++) {
        const d = m.world_dof_start[w];
        for (let k = 0; k < 6; k++) s.joint_qd[d + k] = (k < 3 ? 0.3 : 2) * (rnd() - 0.5);
        s.joint_qd[d + 2] = -Math.abs(s.joint_qd[d + 2]);
      }
    };
    const gb = new WebGpuBackend(gpu());
    await gb.init(m, { solver, max_rigid_contact: sc.max_rigid_contact });
    const cb = new CpuBackend();
    await cb.init(m, { solver, max_rigid_contact: sc.max_rigid_contact });
    const simG = new BackendSimulation(m, gb, { dt: sc.dt, max_rigid_contact: sc.max_rigid_contact });
    const simC = new BackendSimulation(m, cb, { dt: sc.dt, max_rigid_contact: sc.max_rigid_contact });
    init(simC.state);
    simG.state.joint_qd.set(simC.state.joint_qd);
    cb.updateBodyState(simC.state);
    gb.updateBodyState(simG.state);
    const start = cloneState(simC.state);
    const errs = Array.from({ length: m.num_worlds }, () => new TrajectoryError());
    for (let w = 0; w < m.num_worlds; w++) {
      const c = worldSlice(m, start, w);
      errs[w].add('joint_q', c.q, c.q);
      errs[w].add('joint_qd', c.qd, c.qd);
    }
    let itDiff = 0;
    const t0 = performance.now();
    try {
      for (let s = 0; s < steps; s++) {
        const rc = await simC.step();
        const rg = await simG.step();
        for (let w = 0; w < m.num_worlds; w++) {
          const g = worldSlice(m, simG.state, w);
          const c = worldSlice(m, simC.state, w);
          errs[w].add('joint_q', g.q, c.q);
          errs[w].add('joint_qd', g.qd, c.qd);
          if (rg.worlds[w].iterations !== rc.worlds[w].iterations) itDiff++;
        }
      }
    } finally {
      gb.dispose();
    }
    const gpuMs = performance.now() - t0;
    const worst = Math.max(...errs.map((e) => e.worst()));
    // independent one-world runs for a few worlds
    const one = loadRepoScene('box_at_rest', 1);
    const one_err = new TrajectoryError();
    for (const w of [0, 1, 511, worlds - 1]) {
      const b = new CpuBackend();
      await b.init(one.model, { solver, max_rigid_contact: one.max_rigid_contact });
      const sim = new BackendSimulation(one.model, b, {
        dt: one.dt,
        max_rigid_contact: one.max_rigid_contact,
      });
      sim.state.joint_q.set(start.joint_q.subarray(m.world_coord_start[w], m.world_coord_start[w + 1]));
      sim.state.joint_qd.set(start.joint_qd.subarray(m.world_dof_start[w], m.world_dof_start[w + 1]));
      b.updateBodyState(sim.state);
      for (let s = 0; s < steps; s++) await sim.step();
      const g = worldSlice(m, simG.state, w);
      const c = worldSlice(m, start, w);
      // scale: the world's initial state and its end state
      one_err.add(`q${w}`, c.q, c.q);
      one_err.add(`qd${w}`, c.qd, c.qd);
      one_err.add(`q${w}`, g.q, sim.state.joint_q);
      one_err.add(`qd${w}`, g.qd, sim.state.joint_qd);
    }
    const worstOne = one_err.worst();
    STEP_TABLE[`box_at_rest×${worlds}/${preset}`] = {
      joint_q: Math.max(...errs.map((e) => e.errors().joint_q)),
      joint_qd: Math.max(...errs.map((e) => e.errors().joint_qd)),
      independent_runs: worstOne,
      tolerance: TOL_DF64,
      it_mismatch_world_steps: itDiff,
      gpu_ms_per_step: +(gpuMs / steps / 2).toFixed(1),
    };
    expect(worst).toBeLessThanOrEqual(TOL_DF64);
    expect(worstOne).toBeLessThanOrEqual(TOL_DF64);
  });
}

/**
 * Containment (SPEC §3.2, §11): a NaN velocity in one world makes that world invalid_input and
 * keeps its positions, exactly as on the CPU, while the other world steps normally.
 */
export function containmentTest(gpu: () => GpuHandle): void {
  it('contains a NaN input to its world, like the CPU reference', async () => {
    const sc = loadRepoScene('cartpole', 2);
    const m = sc.model;
    const solver = { ...sc.solver, contact_preset_variant: 'approx64' };
    const gb = new WebGpuBackend(gpu());
    await gb.init(m, { solver, max_rigid_contact: sc.max_rigid_contact });
    const cb = new CpuBackend();
    await cb.init(m, { solver, max_rigid_contact: sc.max_rigid_contact });
    const simG = new BackendSimulation(m, gb, { dt: sc.dt, max_rigid_contact: sc.max_rigid_contact });
    const simC = new BackendSimulation(m, cb, { dt: sc.dt, max_rigid_contact: sc.max_rigid_contact });
    for (const sim of [simG, simC]) sim.state.joint_qd[m.world_dof_start[1]] = NaN;
    const q1 = simG.state.joint_q.slice(m.world_coord_start[1], m.world_coord_start[2]);
    try {
      const rc = await simC.step();
      const rg = await simG.step();
      expect(rg.worlds.map((w) => w.status)).toEqual(rc.worlds.map((w) => w.status));
      expect(rg.worlds[1].status).toBe('invalid_input');
      expect(rg.worlds[1].nonfinite).toMatch(/v_star/);
      expect(Array.from(simG.state.joint_q.subarray(m.world_coord_start[1], m.world_coord_start[2]))).toEqual(
        Array.from(q1),
      );
      const w0 = worldSlice(m, simG.state, 0);
      const c0 = worldSlice(m, simC.state, 0);
      const e = new TrajectoryError();
      e.add('q', w0.q, c0.q);
      e.add('qd', w0.qd, c0.qd);
      expect(e.worst()).toBeLessThanOrEqual(TOL_DF64);
    } finally {
      gb.dispose();
    }
  });
}
