/**
 * Stage parity of the cone-limit slots (kernels/equality.wgsl, cone_limit) against their CPU twin,
 * pipeline/cone_limits.ts: on the built cone model ×3 worlds (testing/cone_models.ts) after several
 * lead-ins (limits reached, not reached, left), every cone slot's activity, its Jacobian (one row
 * −aᵀ on the ball's DOFs, the slot's other row zero), its diagonal-Delassus weight and its (R, v̂)
 * match coneRow + the step's window + diagDelassusWeight + makeTendonParams evaluated on the same
 * input (the CPU's v_n and v* of cpu_twin.ts). Tolerances as in suite_stages.ts: 1e-10 with fp64
 * weights, 1e-4 with an fp32 weight; v̂ = −(limit − x₀)/(δt + τ) against the size of its terms.
 */
import { expect, it } from 'vitest';
import { ConeMode, type SapModel } from '../../../model';
import { CONE_ROW, coneRow } from '../../../pipeline/cone_limits';
import { limitSidesInWindow } from '../../../pipeline/joint_constraints';
import { NEAR_RIGID_BETA } from '../../../sap/constraints/common';
import { makeTendonParams } from '../../../sap/constraints/tendon';
import { resolveSolverOptions } from '../../../sap/options';
import { diagDelassusWeight } from '../../../sap/solver';
import { GPU_EQ_CONE, GpuSapContext } from '../context';
import type { GpuHandle } from '../device';
import { coneScene } from './cone_models';
import { cpuWorldProblem } from './cpu_twin';
import { stageFixture } from './fixtures';
import { TOL_DF64, TOL_FP32, relErr } from './parity';
import { slice } from './gpu_rows';
import { STAGE_TABLE } from './suite_stages';

/** lead-in steps of the fixtures (the swing rod reaches its cone near step 40, the hinge's ball by 60) */
const WARMS = [5, 45, 70, 95];

/** the cone-limit stage tests, under an all-fp64 and an fp32-weight preset */
export function coneStageTests(gpu: () => GpuHandle): void {
  for (const preset of ['drake', 'approx32'] as const) {
    it(`cone limits (equality_constraints, cone slots) / ${preset} match pipeline/cone_limits.ts`, async () => {
      const counts = { live: 0, idle: 0, rotation: 0, swing: 0 };
      for (const warm of WARMS) {
        const c = await checkConeSlots(gpu(), warm, preset);
        counts.live += c.live;
        counts.idle += c.idle;
        counts.rotation += c.rotation;
        counts.swing += c.swing;
      }
      // the fixtures exercise both modes and both outcomes (rows, and no rows)
      expect(counts.rotation, 'live rotation-cone slots').toBeGreaterThan(0);
      expect(counts.swing, 'live swing-cone slots').toBeGreaterThan(0);
      expect(counts.idle, 'slots without rows').toBeGreaterThan(0);
    });
  }
}

async function checkConeSlots(
  gpu: GpuHandle,
  warm: number,
  preset: string,
): Promise<{ live: number; idle: number; rotation: number; swing: number }> {
  const fx = stageFixture(coneScene(3), warm);
  const m: SapModel = fx.model;
  const o = resolveSolverOptions({ ...fx.solver, contact_preset_variant: preset });
  const tolW = o.sap_contact_weight_precision === 'fp32' ? TOL_FP32 : TOL_DF64;
  const rnd = o.sap_contact_weight_precision === 'fp32' ? Math.fround : (x: number) => x;
  const key = `${fx.name}@${warm}/${preset}/cone`;
  const row = (STAGE_TABLE[key] ??= {});
  const check = (stage: string, err: number, tol: number) => {
    row[stage] = Math.max(row[stage] ?? 0, err);
    expect(err, `${key} ${stage}: ${err} > ${tol}`).toBeLessThanOrEqual(tol);
  };
  // v_n, v* and A of every tree (cpuWorldProblem evaluates the free motion of all trees)
  const cpu = cpuWorldProblem(fx, o, 0);
  const ctx = new GpuSapContext(gpu, m, { capacity: fx.capacity, max_iterations: o.max_iterations });
  const out = { live: 0, idle: 0, rotation: 0, swing: 0 };
  try {
    ctx.setParams(o, fx.dt, false);
    ctx.uploadInputs(fx.state, fx.control, fx.contacts);
    ctx.fillDataNaN();
    await ctx.run([
      'fk_boundary',
      'free_motion',
      'contact_constraints',
      'joint_constraints',
      'equality_constraints',
    ]);
    const g = await ctx.readFields(['eq_active', 'eq_tree', 'eq_J', 'eq_w', 'eq_param']);
    const maxNv = ctx.maxTreeNv;
    let errJ = 0,
      errW = 0,
      errR = 0,
      errV = 0;
    const slots = ctx.views.eq_type.length;
    for (let e = 0; e < slots; e++) {
      if (ctx.views.eq_type[e] !== GPU_EQ_CONE) continue;
      const j = ctx.views.eq_joint[2 * e];
      const d = m.joint_qd_start[j];
      // the CPU twin (packConeLimits): the row, the window, the parameters
      let live = coneRow(m, j, fx.state.joint_q);
      const x0 = CONE_ROW[0],
        limit = CONE_ROW[1];
      const a = [CONE_ROW[2], CONE_ROW[3], CONE_ROW[4]];
      if (live) {
        const rate = Math.max(
          Math.abs(a[0] * cpu.v_n[d] + a[1] * cpu.v_n[d + 1] + a[2] * cpu.v_n[d + 2]),
          Math.abs(a[0] * cpu.v_star[d] + a[1] * cpu.v_star[d + 1] + a[2] * cpu.v_star[d + 2]),
        );
        live = Number.isFinite(limitSidesInWindow(-Infinity, limit, x0, rate, fx.dt)[1]);
      }
      expect(g.eq_active[e], `${key} slot ${e} (joint ${m.joint_label[j]}) active`).toBe(live ? 1 : 0);
      if (!live) {
        out.idle++;
        continue;
      }
      out.live++;
      if (m.joint_cone_mode[j] === ConeMode.ROTATION) out.rotation++;
      else out.swing++;
      const t = m.joint_tree[j];
      expect(g.eq_tree[2 * e], `${key} slot ${e} tree`).toBe(t);
      expect(g.eq_tree[2 * e + 1], `${key} slot ${e} second block`).toBe(-1);
      const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
      const col = d - m.tree_dof_start[t];
      // the slot's rows: lower (J = 0), upper (−a on the ball's DOFs)
      const Jref = new Float64Array(2 * nv);
      for (let k = 0; k < 3; k++) Jref[nv + col + k] = -a[k];
      errJ = Math.max(errJ, relErr(slice(g.eq_J, e * 12 * maxNv, 2 * nv), Jref));
      const wRef = diagDelassusWeight([{ J: Jref.subarray(nv), A: cpu.treeA[t], nv }], 1, rnd);
      errW = Math.max(errW, relErr(slice(g.eq_w, e, 1), [wRef]));
      const ke = m.joint_limit_ke[d];
      const P = makeTendonParams(
        {
          l0: x0,
          lower: -Infinity,
          upper: limit,
          stiffness: ke,
          tau_d: Number.isFinite(ke) ? m.joint_limit_kd[d] / ke : 0,
          beta: NEAR_RIGID_BETA,
        },
        fx.dt,
        wRef,
      );
      const got = slice(g.eq_param, 12 * e, 4);
      // the lower row's record gives γ = 0: (R, v̂) = (1, −1)
      expect([got[0], got[1]], `${key} slot ${e} lower row`).toEqual([1, -1]);
      errR = Math.max(errR, relErr([got[2]], [P[0]]));
      // v̂ = −(limit − x₀)/(δt + τ) cancels as the limit holds: relative to |limit| + |x₀|
      const scale = (Math.abs(limit) + Math.abs(x0)) / Math.abs((limit - x0) / P[1] || fx.dt);
      errV = Math.max(errV, relErr([got[3]], [P[1]], scale));
    }
    check('cone.J', errJ, TOL_DF64);
    check('cone.w', errW, tolW);
    check('cone.R', errR, tolW);
    check('cone.vhat', errV, tolW);
  } finally {
    ctx.destroy();
  }
  return out;
}
