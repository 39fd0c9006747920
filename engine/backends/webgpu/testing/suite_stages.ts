/**
 * Stage-by-stage GPU ↔ CPU parity (SPEC §6, layout principle 6). Each kernel runs on NaN-prefilled
 * outputs, is read back and compared with its CPU twin evaluated on the same input:
 *
 *   fk_boundary          forwardKinematics, velocityPublicToInternal, forwardVelocity, …
 *   free_motion          crbaTree (+dt·D), rneaTree, freeMotionTree
 *   contact_constraints  buildContactConstraints + makeContactParams (every weight/point mode)
 *   joint_constraints    buildJointConstraints + makeLimitParams / makePdParams
 *   equality_constraints buildEqualityConstraints + the diagonal-Delassus w + makeHolonomicParams
 *   sap_setup … sap_linesearch   the reference SapSolver's own steps (testing/cpu_twin.ts); the
 *                        solve and the line search take the GPU's ∇ℓ and Δv as input, so each
 *                        stage is checked on the same input (∇ℓ cancels near equilibrium and is
 *                        compared relative to the size of its terms A(v − v*) and Jᵀγ)
 *   Newton loop + sap_finish     SapSolver.solve (v, iterations, status, contact forces)
 *   integrate            integratePositions on the GPU's v_{n+1}
 *   fk_final             forwardKinematics / velocityInternalToPublic / writeBodyState
 *
 * Tolerances (normwise relative): 1e-10 where every input of the stage is fp64 on the CPU (df64 on
 * the GPU), 1e-4 once an fp32 knob has entered the stage's inputs; with equality constraints
 * (near-rigid rows) ×HOLONOMIC_TOL_FACTOR from the linear solve on (the condition of H).
 */
import { expect, it } from 'vitest';
import {
  forwardKinematics,
  forwardVelocity,
  makeKinematicsData,
  velocityInternalToPublic,
  writeBodyState,
} from '../../../kinematics';
import { makeRneaScratch, rneaTree } from '../../../dynamics';
import type { SapModel } from '../../../model';
import type { GpuViews } from '../../../model/layout_views';
import { makeContactParams } from '../../../sap/constraints/contact';
import { makeLimitParams } from '../../../sap/constraints/limit';
import { makePdParams } from '../../../sap/constraints/pd';
import { makeHolonomicParams } from '../../../sap/constraints/holonomic';
import { diagDelassusWeight } from '../../../sap/solver';
import { equalityScene } from './equality_models';
import { integratePositions } from '../../../pipeline/integrate';
import { resolveSolverOptions, type SapSolverOptions } from '../../../sap/options';
import { SapSolver } from '../../../sap/solver';
import { GpuSapContext } from '../context';
import type { GpuHandle } from '../device';
import { CpuNewtonTwin, cpuWorldProblem } from './cpu_twin';
import { stageFixture, type StageFixture } from './fixtures';
import { EQ_ROWS, gpuRowMap, pick, slice } from './gpu_rows';
import {
  HOLONOMIC_TOL_FACTOR,
  TOL_DF64,
  TOL_FP32,
  loadRepoScene,
  relErr,
  relErrDf,
  type TestScene,
} from './parity';

export const PRESETS = ['approx32', 'approx64', 'drake'] as const;
export const LINE_SEARCHES = ['monotone_decay', 'armijo_decay', 'exact_root'] as const;

/** the line search of test (scene index, preset index): every scene and every preset meets all three */
export function lineSearchFor(scene: number, preset: number): (typeof LINE_SEARCHES)[number] {
  return LINE_SEARCHES[(scene + preset) % 3];
}

/** scenes of the stage tests; cartpole is moved next to its rail limit so the limit is active */
export const STAGE_SCENES: { name: string; warm: number; adjust?: Parameters<typeof stageFixture>[2] }[] = [
  { name: 'box_stack', warm: 20 },
  {
    name: 'cartpole',
    warm: 30,
    adjust: (scene, state) => {
      const j = scene.joint_ids['cart_slider'];
      state.joint_q[scene.model.joint_q_start[j]] = 1.495;
      state.joint_qd[scene.model.joint_qd_start[j]] = 2.0;
    },
  },
  { name: 'arm7', warm: 20 },
];

/**
 * arm7 with dry friction on its seven joints (1 N·m: under its PD drives some stick, some slip), so
 * the joint-friction rows run beside the drives on the same DOFs; `sigma`: the solver option
 * joint_friction_sigma (default: the scene's, Drake's 1e-3)
 */
export function arm7WithFriction(sigma?: number): TestScene {
  const sc = loadRepoScene('arm7');
  sc.model.joint_friction.fill(1);
  if (sigma === undefined) return { ...sc, name: 'arm7+friction' };
  return { ...sc, name: `arm7+friction σ ${sigma}`, solver: { ...sc.solver, joint_friction_sigma: sigma } };
}

/**
 * arm7 with its drives off and each hinge's limits 0.05 rad either side of its initial angle, so it
 * sags onto them under gravity: the limit rows carry the load (and, as the arm swings back, the
 * other side's row too)
 */
export function arm7OnLimits(): TestScene {
  const sc = loadRepoScene('arm7');
  const m = sc.model;
  m.joint_target_ke.fill(0);
  m.joint_target_kd.fill(0);
  for (let j = 0; j < m.joint_count; j++) {
    if (m.joint_qd_start[j + 1] - m.joint_qd_start[j] !== 1) continue;
    const d = m.joint_qd_start[j];
    const q0 = m.joint_q0[m.joint_q_start[j]];
    m.joint_limit_lower[d] = q0 - 0.05;
    m.joint_limit_upper[d] = q0 + 0.05;
  }
  return { ...sc, name: 'arm7 on its limits' };
}

/** the built equality model (coupler, ball, weld; engine/backends/webgpu/testing/equality_models.ts) */
export const EQUALITY_STAGE_SCENE = { warm: 20, load: () => equalityScene() };

/** worst error per (scene/preset, stage), printed by the suite */
export const STAGE_TABLE: Record<string, Record<string, number>> = {};

function fp32Anywhere(o: SapSolverOptions): boolean {
  return (
    o.free_motion_solve_precision === 'fp32' ||
    o.sap_contact_weight_precision === 'fp32' ||
    o.contact_linear_solve_precision === 'fp32' ||
    o.contact_solve_precision === 'fp32' ||
    !o.use_f64_boundary_pose
  );
}

/** runs every stage of one fixture under one preset and checks it against its twin */
export async function checkStages(
  gpu: GpuHandle,
  fx: StageFixture,
  preset: string,
  lineSearch?: string,
): Promise<void> {
  const m: SapModel = fx.model;
  const o = resolveSolverOptions({
    ...fx.solver,
    contact_preset_variant: preset,
    ...(lineSearch ? { line_search_variant: lineSearch } : {}),
  });
  const key = `${fx.name}/${preset}/${o.line_search_variant}`;
  const row = (STAGE_TABLE[key] ??= {});
  const check = (stage: string, err: number, tol: number) => {
    row[stage] = Math.max(row[stage] ?? 0, err);
    expect(err, `${key} ${stage}: ${err} > ${tol}`).toBeLessThanOrEqual(tol);
  };
  // stages downstream of an fp32 knob compare at the fp32 tolerance
  const tolAfter32 = fp32Anywhere(o) ? TOL_FP32 : TOL_DF64;
  const tolW = o.sap_contact_weight_precision === 'fp32' ? TOL_FP32 : TOL_DF64;
  const tolFm = o.free_motion_solve_precision === 'fp32' ? TOL_FP32 : TOL_DF64;

  const cpu = cpuWorldProblem(fx, o, 0);
  const ctx = new GpuSapContext(gpu, m, { capacity: fx.capacity, max_iterations: o.max_iterations });
  try {
    ctx.setParams(
      o,
      fx.dt,
      fx.state.body_f.some((x) => x !== 0),
    );
    ctx.uploadInputs(fx.state, fx.control, fx.contacts);
    ctx.fillDataNaN();
    const read = (names: (keyof GpuViews)[]) => ctx.readFields(names);

    // 1. boundary kinematics
    await ctx.run(['fk_boundary']);
    let g = await read([
      'body_X',
      'body_R',
      'body_com_w',
      'body_I_w',
      'dof_S',
      'body_V',
      'body_c',
      'v_n',
      'tau',
      'cbody_X',
      'cdof_S',
    ]);
    check('fk.body_X', relErrDf(g.body_X, cpu.kin.body_X), TOL_DF64);
    check('fk.body_R', relErrDf(g.body_R, cpu.kin.body_R), TOL_DF64);
    check('fk.body_com_w', relErrDf(g.body_com_w, cpu.kin.body_com_w), TOL_DF64);
    check('fk.body_I_w', relErrDf(g.body_I_w, cpu.kin.body_I_w), TOL_DF64);
    check('fk.dof_S', relErrDf(g.dof_S, cpu.kin.dof_S), TOL_DF64);
    check('fk.body_V', relErrDf(g.body_V, cpu.kin.body_V), TOL_DF64);
    check('fk.body_c', relErrDf(g.body_c, cpu.kin.body_c), TOL_DF64);
    check('fk.v_n', relErrDf(g.v_n, cpu.v_n), TOL_DF64);
    check('fk.tau', relErrDf(g.tau, cpu.tau), TOL_DF64);
    check('fk.contact_pose', relErrDf(g.cbody_X, cpu.kinC.body_X), TOL_DF64);
    check('fk.contact_S', relErrDf(g.cdof_S, cpu.kinC.dof_S), TOL_DF64);

    // 2. free motion
    await ctx.run(['free_motion']);
    g = await read(['tree_A', 'bias', 'v_star', 'A_diag']);
    const A = new Float64Array(g.tree_A.length / 2);
    let a0 = 0;
    for (const At of cpu.treeA) {
      A.set(At, a0);
      a0 += At.length;
    }
    check('crba.A', relErrDf(g.tree_A, A), TOL_DF64);
    check('free_motion.A_diag', relErrDf(g.A_diag, cpu.A_diag), TOL_DF64);
    check('free_motion.v_star', relErrDf(g.v_star, cpu.v_star), tolFm);
    // bias forces against a direct rneaTree run (freeMotionTree uses the same call)
    const bias = new Float64Array(m.joint_dof_count);
    const rs = makeRneaScratch(m);
    for (let t = 0; t < m.tree_count; t++) {
      rneaTree(
        m,
        cpu.kin,
        t,
        { qdd: null, velocity: true, gravity: true, body_f: fx.state.body_f },
        rs,
        bias,
      );
    }
    check('rnea.bias', relErrDf(g.bias, bias), TOL_DF64);

    // 3. constraints
    await ctx.run(['contact_constraints', 'joint_constraints', 'equality_constraints']);
    g = await read([
      'con_active',
      'con_tree',
      'con_J',
      'con_w',
      'con_param',
      'con_frame',
      'con_point',
      'lim_rows',
      'pd_active',
      'fr_active',
      'lim_param',
      'pd_param',
      'fr_param',
      'world_i',
      'eq_active',
      'eq_tree',
      'eq_J',
      'eq_w',
      'eq_param',
    ]);
    const map = gpuRowMap(m, g, 0, fx.capacity);
    expect(map.slots.length, `${key} live contacts`).toBe(cpu.nContacts);
    const jStride = 6 * ctx.maxTreeNv;
    let errJ = 0,
      errW = 0,
      errP = 0,
      errF = 0;
    map.slots.forEach((s, c) => {
      const spec = cpu.specs[c];
      if (spec.kind !== 'contact') throw new Error('contact order');
      spec.J.forEach((Jc, b) => {
        errJ = Math.max(errJ, relErr(slice(g.con_J, s * jStride + b * 3 * ctx.maxTreeNv, Jc.length), Jc));
      });
      errW = Math.max(errW, relErr(slice(g.con_w, s, 1), [spec.w ?? NaN]));
      const P = makeContactParams(
        {
          mu: spec.mu,
          stiffness: spec.stiffness,
          tau_d: spec.tau_d,
          phi0: spec.phi0,
          beta: spec.beta,
          sigma: spec.sigma,
        },
        fx.dt,
        spec.w ?? NaN,
      );
      errP = Math.max(errP, relErr(slice(g.con_param, 6 * s, 6), P.subarray(0, 6)));
      errF = Math.max(errF, relErr(slice(g.con_frame, 9 * s, 9), cpu.records[c].frame));
      errF = Math.max(errF, relErr(slice(g.con_point, 3 * s, 3), cpu.records[c].point));
    });
    check('contacts.J', errJ, TOL_DF64);
    check('contacts.frame_point', errF, TOL_DF64);
    check('contacts.w', errW, tolW);
    check('contacts.params', errP, tolW);
    let errL = 0;
    const jointSpecs = cpu.specs.slice(cpu.nContacts).filter((s) => s.kind !== 'holonomic');
    let si = 0;
    for (const d of map.dofs) {
      const t = m.joint_tree[m.joint_count > 0 ? dofJoint(m, d) : 0];
      const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
      const w = 1 / cpu.treeA[t][(d - m.tree_dof_start[t]) * (nv + 1)];
      if (g.lim_rows[d]) {
        const spec = jointSpecs[si++];
        if (spec.kind !== 'limit') throw new Error('limit order');
        const P = makeLimitParams(spec, fx.dt, w);
        const got = slice(g.lim_param, 4 * d, 4);
        const lr = g.lim_rows[d];
        const ref: number[] = [];
        const gv: number[] = [];
        let r = 0;
        if (lr & 1) {
          gv.push(got[0], got[1]);
          ref.push(P[2 * r], P[2 * r + 1]);
          r++;
        }
        if (lr & 2) {
          gv.push(got[2], got[3]);
          ref.push(P[2 * r], P[2 * r + 1]);
        }
        errL = Math.max(errL, relErr(gv, ref));
      }
      if (g.pd_active[d]) {
        const spec = jointSpecs[si++];
        if (spec.kind !== 'pd') throw new Error('pd order');
        errL = Math.max(
          errL,
          relErr(slice(g.pd_param, 8 * d, 8), makePdParams(spec, fx.dt, w).subarray(0, 8)),
        );
      }
      if (g.fr_active[d]) {
        const spec = jointSpecs[si++];
        if (spec.kind !== 'joint_friction') throw new Error('joint friction order');
        errL = Math.max(
          errL,
          relErr(slice(g.fr_param, 2 * d, 2), [
            (Number.isFinite(spec.sigma) ? spec.sigma! : o.joint_friction_sigma) * w,
            fx.dt * spec.friction,
          ]),
        );
      }
    }
    expect(si, `${key} joint constraints`).toBe(jointSpecs.length);
    check('joint_constraints.params', errL, TOL_DF64);
    const holoRows = checkEqualities(fx, o, cpu, g, map.eqs, ctx.maxTreeNv, check, tolW);

    // 4. SAP setup and one Newton iteration, stage by stage, against the reference solver
    await ctx.run(['sap_setup']);
    g = await read(['world_i', 'sap_v', 'sap_vstar']);
    const nvp = g.world_i[0];
    const d0 = m.world_dof_start[0];
    const vGuess = cpu.v_n.slice(d0, m.world_dof_start[1]);
    if (cpu.specs.length > 0) {
      const twin = new CpuNewtonTwin(cpu.problem, o, vGuess);
      expect(nvp, `${key} participating DOFs`).toBe(twin.nvp);
      await ctx.run(['sap_eval']);
      g = await read(['sap_vc', 'sap_gamma', 'sap_G', 'sap_grad', 'sap_cost', 'world_i']);
      const ev = twin.eval();
      const rm = gpuRowMap(m, g, 0, fx.capacity);
      const hf = holonomicFloors(holoRows, vGuess);
      check('sap_eval.vc', relErr(pick(g.sap_vc, rm.rows), ev.vc, hf.vc), tolAfter32);
      check('sap_eval.gamma', relErr(pick(g.sap_gamma, rm.rows), ev.gamma, hf.gamma), tolAfter32);
      check('sap_eval.G', relErr(pick(g.sap_G, rm.gdiag), ev.Gdiag), tolAfter32);
      // ∇ℓ = A(v − v*) − Jᵀγ cancels near equilibrium: relative to the size of its terms
      const gradScale = Math.max(...ev.Ar.map(Math.abs), ...ev.jv.map(Math.abs), hf.grad);
      const gradGpu = slice(g.sap_grad, d0, nvp);
      check('sap_eval.grad', relErr(gradGpu, ev.grad, gradScale), tolAfter32);
      check('sap_eval.cost', relErr(slice(g.sap_cost, 0, 1), [ev.cost]), tolAfter32);
      // from the factorization on: the condition of H (near-rigid holonomic rows)
      const tolSolve = holoRows.length > 0 ? tolAfter32 * HOLONOMIC_TOL_FACTOR : tolAfter32;
      if (g.world_i[2] === 1) {
        const hb = ctx.views.world_H_start[0];
        const lower = (src: Float64Array) => {
          const out: number[] = [];
          for (let a = 0; a < nvp; a++) for (let b = 0; b <= a; b++) out.push(src[a * nvp + b]);
          return out;
        };
        await ctx.run(['sap_hessian']);
        g = await read(['sap_H']);
        check(
          'sap_hessian.H',
          relErr(lower(slice(g.sap_H, hb, nvp * nvp)), lower(twin.hessian())),
          tolAfter32,
        );
        await ctx.run(['sap_factor']);
        g = await read(['sap_H']);
        check('sap_factor.L', relErr(lower(slice(g.sap_H, hb, nvp * nvp)), lower(twin.factor())), tolSolve);
        // the solve and the line data on the GPU's own inputs (its ∇ℓ, its Δv)
        await ctx.run(['sap_solve']);
        g = await read(['sap_dv', 'sap_dvc', 'sap_scalar']);
        const dvGpu = slice(g.sap_dv, d0, nvp);
        check('sap_solve.dv', relErr(dvGpu, twin.solve(gradGpu)), tolSolve);
        const ld = twin.lineData(dvGpu);
        check('sap_solve.dvc', relErr(pick(g.sap_dvc, rm.rows), ld.dvc), tolSolve);
        const ldScale = Math.max(Math.abs(ld.d2A), Math.abs(ld.dpr), Math.abs(ld.dphi0));
        check(
          'sap_solve.line_data',
          relErr(slice(g.sap_scalar, 4, 3), [ld.dpr, ld.d2A, ld.dphi0], ldScale),
          tolSolve,
        );
        await ctx.run(['sap_linesearch']);
        g = await read(['sap_v', 'sap_scalar', 'world_i']);
        const ls = twin.lineSearch(ld.dphi0);
        check('sap_linesearch.alpha', relErr(slice(g.sap_scalar, 2, 1), [ls.alpha]), tolSolve);
        check('sap_linesearch.v', relErr(slice(g.sap_v, d0, nvp), ls.v1), tolSolve);
        expect(g.world_i[4], `${key} line-search iterations`).toBe(ls.iterations);
      }
    }

    // 5. the whole Newton loop from the start, sap_finish, integrate, fk_final
    ctx.fillDataNaN();
    await ctx.run([
      'fk_boundary',
      'free_motion',
      'contact_constraints',
      'joint_constraints',
      'equality_constraints',
      'sap_setup',
    ]);
    await ctx.newtonLoop(o.max_iterations);
    await ctx.run(['sap_finish']);
    g = await read(['v_next', 'world_i', 'con_force', 'con_slip', 'con_active']);
    const vNextGpu = slice(g.v_next, 0, m.joint_dof_count);
    const ref = new SapSolver(o).solve(cpu.problem, vGuess);
    const vRef = cpu.v_star.slice();
    if (cpu.specs.length > 0) vRef.set(ref.v, d0);
    const holo = cpu.specs.some((sp) => sp.kind === 'holonomic');
    const tolNewton = holo ? tolAfter32 * HOLONOMIC_TOL_FACTOR : tolAfter32;
    check('newton.v_next', relErr(vNextGpu, vRef), tolNewton);
    if (cpu.specs.length > 0) {
      expect(g.world_i[3], `${key} Newton iterations`).toBe(ref.iterations);
      expect(['converged', 'max_iterations', 'line_search_failed', 'invalid_input'][g.world_i[1]]).toBe(
        ref.status,
      );
      // contact forces R_WC γ / dt
      let errFc = 0;
      gpuRowMap(m, g, 0, fx.capacity).slots.forEach((s, c) => {
        const f = cpu.records[c].frame;
        const gm = ref.gamma[c];
        const fr = [0, 1, 2].map((k) => (f[k] * gm[0] + f[3 + k] * gm[1] + f[6 + k] * gm[2]) / fx.dt);
        errFc = Math.max(errFc, relErr(slice(g.con_force, 3 * s, 3), fr, 1e-9));
      });
      check('sap_finish.contact_force', errFc, tolNewton);
    }
    await ctx.run(['integrate']);
    g = await read(['q_out', 'v_next']);
    const vNext = slice(g.v_next, 0, m.joint_dof_count);
    const vbar = new Float64Array(m.joint_dof_count);
    for (let d = 0; d < vbar.length; d++) {
      vbar[d] = o.position_integration === 'midpoint' ? 0.5 * (cpu.v_n[d] + vNext[d]) : vNext[d];
    }
    const qRef = new Float64Array(m.joint_coord_count);
    integratePositions(m, 0, m.joint_count, fx.state.joint_q, vbar, fx.dt, qRef);
    check('integrate.q', relErrDf(g.q_out, qRef), TOL_DF64);
    await ctx.run(['fk_final']);
    g = await read(['q_out', 'qd_out', 'body_q_out', 'body_qd_out']);
    const qOut = slice(g.q_out, 0, m.joint_coord_count);
    const kin = makeKinematicsData(m);
    forwardKinematics(m, qOut, kin);
    const qd = new Float64Array(m.joint_dof_count);
    velocityInternalToPublic(m, kin, vNext, qd);
    forwardVelocity(m, vNext, kin);
    const bq = new Float64Array(7 * m.body_count);
    const bqd = new Float64Array(6 * m.body_count);
    writeBodyState(m, kin, bq, bqd);
    check('fk_final.qd', relErrDf(g.qd_out, qd), TOL_DF64);
    check('fk_final.body_q', relErrDf(g.body_q_out, bq), TOL_DF64);
    check('fk_final.body_qd', relErrDf(g.body_qd_out, bqd), TOL_DF64);
  } finally {
    ctx.destroy();
  }
}

/**
 * equality stage: Jacobians (scattered over the world's DOFs, so block splits do not matter), the
 * diagonal-Delassus weight and the parameters (R, v̂ per row) of every live equality, in order
 */
function checkEqualities(
  fx: StageFixture,
  o: SapSolverOptions,
  cpu: ReturnType<typeof cpuWorldProblem>,
  g: GpuViews,
  eqs: number[],
  maxNv: number,
  check: (stage: string, err: number, tol: number) => void,
  tolW: number,
): HolonomicRow[] {
  const m = fx.model;
  const out: HolonomicRow[] = [];
  const w = 0;
  const specs = cpu.specs.filter((s) => s.kind === 'holonomic');
  expect(eqs.length, `${fx.name} live equalities`).toBe(specs.length);
  if (specs.length === 0) return out;
  const d0 = m.world_dof_start[w];
  const nvW = m.world_dof_start[w + 1] - d0;
  const cliqueTree: number[] = [];
  for (let t = m.world_tree_start[w]; t < m.world_tree_start[w + 1]; t++)
    if (m.tree_dof_start[t + 1] > m.tree_dof_start[t]) cliqueTree.push(t);
  const rnd = o.sap_contact_weight_precision === 'fp32' ? Math.fround : (x: number) => x;
  let errJ = 0,
    errW = 0,
    errP = 0;
  eqs.forEach((e, i) => {
    const spec = specs[i];
    if (spec.kind !== 'holonomic') throw new Error('equality order');
    const nr = EQ_ROWS[g.eq_type[e]];
    expect(spec.g0.length, `${fx.name} equality ${e} rows`).toBe(nr);
    const Jc = new Float64Array(nr * nvW);
    const Jg = new Float64Array(nr * nvW);
    const blocks: { J: Float64Array; A: Float64Array; nv: number }[] = [];
    spec.cliques.forEach((c, b) => {
      const t = cliqueTree[c];
      const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
      const o0 = m.tree_dof_start[t] - d0;
      for (let r = 0; r < nr; r++) for (let k = 0; k < nv; k++) Jc[r * nvW + o0 + k] += spec.J[b][r * nv + k];
      blocks.push({ J: spec.J[b], A: cpu.treeA[t], nv });
    });
    for (let b = 0; b < 2; b++) {
      const t = g.eq_tree[2 * e + b];
      if (t < 0) continue;
      const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
      const o0 = m.tree_dof_start[t] - d0;
      const J = slice(g.eq_J, e * 12 * maxNv + b * 6 * maxNv, nr * nv);
      for (let r = 0; r < nr; r++) for (let k = 0; k < nv; k++) Jg[r * nvW + o0 + k] += J[r * nv + k];
    }
    errJ = Math.max(errJ, relErr(Jg, Jc));
    const wRef = diagDelassusWeight(blocks, nr, rnd);
    errW = Math.max(errW, relErr(slice(g.eq_w, e, 1), [wRef]));
    const P = makeHolonomicParams(spec, fx.dt, wRef);
    const got = slice(g.eq_param, 12 * e, 2 * nr);
    const R = [0, 1, 2, 3, 4, 5].slice(0, nr).map((r) => 2 * r);
    const vh = R.map((r) => r + 1);
    errP = Math.max(errP, relErr(pick2(got, R), pick2(P, R)));
    // v̂ = −g₀/(δt + τ): g₀ is a difference of positions (coordinates, rotations) that cancels as
    // the constraint holds, so it is compared relative to the size of its terms, like ∇ℓ
    const denom = Math.abs(spec.g0[0] / P[1]) || fx.dt;
    const terms = equalityTerms(m, cpu, e, fx.state.joint_q) / denom;
    errP = Math.max(errP, relErr(pick2(got, vh), pick2(P, vh), terms));
    for (let r = 0; r < nr; r++)
      out.push({ J: Jc.slice(r * nvW, (r + 1) * nvW), R: P[2 * r], vhat: P[2 * r + 1] });
  });
  check('equality.J', errJ, TOL_DF64);
  check('equality.w', errW, tolW);
  check('equality.params', errP, tolW);
  return out;
}

/** one holonomic row of the reference: its Jacobian over the world's DOFs, R and v̂ */
interface HolonomicRow {
  J: Float64Array;
  R: number;
  vhat: number;
}

/**
 * Floors of the evaluation stage for near-rigid holonomic rows, the size of the terms that cancel:
 * vc = Jv against Σ|J||v|, γ = (v̂ − vc)/R against (|v̂| + Σ|J||v|)/R, and Jᵀγ against |J|ᵀ of that
 * (the rows hold, so vc and γ are small differences of large terms; 1/R ≈ 4π²/(β²w) amplifies the
 * rounding of vc into γ and ∇ℓ). 1e-300 (pure normwise) without equalities.
 */
function holonomicFloors(rows: HolonomicRow[], v: Float64Array): { vc: number; gamma: number; grad: number } {
  const f = { vc: 1e-300, gamma: 1e-300, grad: 1e-300 };
  const gf: number[] = [];
  for (const row of rows) {
    let t = 0;
    row.J.forEach((j, k) => (t += Math.abs(j * v[k])));
    f.vc = Math.max(f.vc, t);
    gf.push((Math.abs(row.vhat) + t) / row.R);
    f.gamma = Math.max(f.gamma, gf[gf.length - 1]);
  }
  for (let k = 0; k < v.length; k++) {
    let t = 0;
    rows.forEach((row, r) => (t += Math.abs(row.J[k]) * gf[r]));
    f.grad = Math.max(f.grad, t);
  }
  return f;
}

function pick2(a: ArrayLike<number>, idx: number[]): number[] {
  return idx.map((i) => a[i]);
}

/** magnitude of the terms whose difference is g₀ of equality e (coordinates, world anchors, 1 rad) */
function equalityTerms(
  m: SapModel,
  cpu: ReturnType<typeof cpuWorldProblem>,
  e: number,
  q: Float64Array,
): number {
  if (m.eq_type[e] === 0) {
    const q0 = q[m.joint_q_start[m.eq_joint0[e]]];
    const q1 = q[m.joint_q_start[m.eq_joint1[e]]];
    return Math.max(Math.abs(q0), Math.abs(m.eq_ratio[e] * q1), Math.abs(m.eq_offset[e]));
  }
  let t = m.eq_type[e] === 2 ? 1 : 0;
  for (const [b, a] of [
    [m.eq_body0[e], m.eq_anchor0],
    [m.eq_body1[e], m.eq_anchor1],
  ] as const) {
    const p = b < 0 ? [0, 0, 0] : Array.from(cpu.kin.body_X.subarray(7 * b, 7 * b + 3));
    t = Math.max(t, Math.hypot(p[0], p[1], p[2]) + Math.hypot(a[3 * e], a[3 * e + 1], a[3 * e + 2]));
  }
  return t;
}

function dofJoint(m: SapModel, d: number): number {
  for (let j = 0; j < m.joint_count; j++)
    if (d >= m.joint_qd_start[j] && d < m.joint_qd_start[j + 1]) return j;
  return -1;
}

/** registers the stage-parity tests */
export function stageParityTests(gpu: () => GpuHandle): void {
  STAGE_SCENES.forEach((sc, si) => {
    PRESETS.forEach((preset, pi) => {
      const ls = lineSearchFor(si, pi);
      it(`${sc.name} / ${preset} / ${ls}: every stage matches its CPU twin`, async () => {
        await checkStages(gpu(), stageFixture(sc.name, sc.warm, sc.adjust), preset, ls);
      });
    });
  });
  PRESETS.forEach((preset, pi) => {
    const ls = LINE_SEARCHES[pi];
    it(`arm7 + joint friction (σ 0.02) / ${preset} / ${ls}: every stage matches its CPU twin`, async () => {
      await checkStages(gpu(), stageFixture(arm7WithFriction(0.02), 20), preset, ls);
    });
  });
  PRESETS.forEach((preset, pi) => {
    const ls = LINE_SEARCHES[pi];
    it(`equalities / ${preset} / ${ls}: every stage matches its CPU twin`, async () => {
      const sc = EQUALITY_STAGE_SCENE;
      await checkStages(gpu(), stageFixture(sc.load(), sc.warm), preset, ls);
    });
  });
  it('prints the stage parity table', () => {
    console.log('GPU stage parity, normwise relative error (tolerance 1e-10 df64, 1e-4 after an fp32 knob):');
    console.table(STAGE_TABLE);
  });
}
