// SAP Newton iterations (SPEC §3.3, §3.4, §3.6), one invocation per world: the twin of
// engine/sap/solver.ts (setup, evalAtV and the convergence test, assembleH, the line-search
// objective, pack) and engine/sap/linesearch.ts. The host loops over iterations; a world whose
// convergence mask (world_i[active]) is 0 skips every kernel. The factorization and solve live in
// sap_linear.wgsl (precision contact_linear_solve_precision).
// df64 throughout; contact_solve_precision fp32 rounds v, γ, Jᵀγ, ∇ℓ and H where stored.
// Needs df64, spatial, layout, kernels/sap_constraints.wgsl.

const SLIP_OPEN_N: i32 = 0;
const SLIP_STICK_N: i32 = 1;
const SLIP_SLIP_N: i32 = 2;

// nonfinite codes (world_i[5])
const NF_FREE_MOTION: i32 = 1;
const NF_V_STAR: i32 = 2;
const NF_V: i32 = 3;
const NF_COST: i32 = 5;
const NF_D2A: i32 = 6;
const NF_CONTACT: i32 = 7;
const NF_EQUALITY: i32 = 8;

fn wdof0(w: u32) -> u32 {
  return u32(get_world_dof_start(w));
}

fn set_status(w: u32, st: i32) {
  set_world_i(w, WI_STATUS, st);
  set_world_i(w, WI_ACTIVE, 0);
}

// warm start phases (sap_start): Newton from v_n, or (L.extrapolate: the step continues the last
// one) from the lower-cost of v_n and v_n + (v_n − v_prev), as SapSolver.solveWhole: v_n is
// evaluated first; unless it meets the tolerance the alternative is evaluated in a second pass, and
// v_n once more in a third if it stays the better (passes without a Newton step: WI_ACTIVE = 2)
const START_VN: i32 = 0;
const START_VN_EVALUATED: i32 = 1;
const START_ALT_EVALUATED: i32 = 2;
const START_ALT_TAKEN: i32 = 3;
const START_VN_AGAIN: i32 = 4;
const SS_ELL_VN: u32 = 7u;

// the reduced iterate from v_n (alt = false) or from v_n + (v_n − v_prev), rounded like a start
fn load_start(w: u32, alt: bool) {
  let d0 = wdof0(w);
  let nvp = u32(get_world_i(w, WI_NVP));
  for (var a = 0u; a < nvp; a++) {
    let d = u32(get_red_dof(d0 + a));
    let vn = get_v_n(d);
    if (alt) {
      set_sap_v(d0 + a, cs_round(df_add(vn, df_sub(vn, get_v_prev(d)))));
    } else {
      set_sap_v(d0 + a, cs_round(vn));
    }
  }
}

// participation, reduced offsets, v ← v_n (warm start), D = diag(A)^-1/2; or the trivial outcomes
@compute @workgroup_size(64)
fn sap_setup(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let w = gid.x;
  if (w >= L.num_worlds) {
    return;
  }
  let d0 = wdof0(w);
  let d1 = u32(get_world_dof_start(w + 1u));
  let tw0 = u32(get_world_tree_start(w));
  let tw1 = u32(get_world_tree_start(w + 1u));
  for (var k = 0u; k < 8u; k++) {
    set_world_i(w, k, 0);
  }
  for (var k = 0u; k < 8u; k++) {
    set_sap_scalar(w, k, df(0.0, 0.0));
  }
  set_sap_scalar(w, SS_ALPHA, df(1.0, 0.0));
  set_sap_start(w, select(START_VN, START_VN_EVALUATED, L.extrapolate != 0u));
  var bad = 0;
  var cliques = 0u;
  for (var t = tw0; t < tw1; t++) {
    set_tree_red(t, -1);
    if (get_tree_fm_bad(t) != 0) {
      bad = NF_FREE_MOTION;
    }
    if (tree_nv(t) > 0u) {
      cliques++;
    }
  }
  for (var d = d0; d < d1; d++) {
    if (df_nonfinite(get_v_star(d)) && bad == 0) {
      bad = NF_V_STAR;
    }
  }
  // mark participating trees (tree_red = 0), then assign offsets in tree order
  let cnt = u32(get_contact_count(w));
  for (var i = 0u; i < cnt; i++) {
    let s = w * L.capacity + i;
    let a = get_con_active(s);
    if (a == 2 && bad == 0) {
      bad = NF_CONTACT;
    }
    if (a != 1) {
      continue;
    }
    for (var b = 0u; b < 2u; b++) {
      let t = get_con_tree(s, b);
      if (t >= 0) {
        set_tree_red(u32(t), 0);
      }
    }
  }
  for (var d = d0; d < d1; d++) {
    if (get_lim_rows(d) != 0 || get_pd_active(d) != 0 || get_fr_active(d) != 0) {
      set_tree_red(u32(get_dof_tree(d)), 0);
    }
  }
  for (var e = u32(get_world_eq_start(w)); e < u32(get_world_eq_start(w + 1u)); e++) {
    let a = get_eq_active(e);
    if (a == 2 && bad == 0) {
      bad = NF_EQUALITY;
    }
    if (a == 0) {
      continue;
    }
    for (var b = 0u; b < 2u; b++) {
      let t = get_eq_tree(e, b);
      if (t >= 0) {
        set_tree_red(u32(t), 0);
      }
    }
  }
  var nvp = 0u;
  for (var t = tw0; t < tw1; t++) {
    if (get_tree_red(t) < 0) {
      continue;
    }
    set_tree_red(t, i32(nvp));
    let t0 = u32(get_tree_dof_start(t));
    let a0 = u32(get_tree_A_start(t));
    let n = tree_nv(t);
    for (var m = 0u; m < n; m++) {
      let r = d0 + nvp + m;
      set_red_dof(r, i32(t0 + m));
      set_sap_v(r, cs_round(get_v_n(t0 + m)));
      set_sap_vstar(r, get_v_star(t0 + m));
      set_sap_dinv(r, df_div(df(1.0, 0.0), df_sqrt(get_tree_A(a0 + m * n + m))));
    }
    nvp += n;
  }
  set_world_i(w, WI_NVP, i32(nvp));
  set_world_i(w, 7u, i32(cliques));
  if (bad != 0) {
    set_world_i(w, WI_NONFINITE, bad);
    set_status(w, ST_INVALID);
    for (var d = d0; d < d1; d++) {
      set_v_next(d, get_v_n(d));
    }
    return;
  }
  if (nvp == 0u) {
    // no constraints: v = v*
    set_status(w, ST_CONVERGED);
    if (cliques > 0u) {
      set_world_i(w, WI_COSTS, 1);
      set_sap_cost(w * L.cost_stride, df(0.0, 0.0));
    }
    for (var d = d0; d < d1; d++) {
      set_v_next(d, get_v_star(d));
    }
    return;
  }
  set_world_i(w, WI_STATUS, ST_MAX_ITERATIONS);
  set_world_i(w, WI_ACTIVE, 1);
}

// evaluation at the iterate and the convergence test (evalAtV + the loop head of newton())
@compute @workgroup_size(64)
fn sap_eval(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let w = gid.x;
  if (w >= L.num_worlds || get_world_i(w, WI_ACTIVE) == 0) {
    return;
  }
  let d0 = wdof0(w);
  let nvp = u32(get_world_i(w, WI_NVP));
  let tw0 = u32(get_world_tree_start(w));
  let tw1 = u32(get_world_tree_start(w + 1u));
  world_Jx(w, L.o_sap_v + d0, L.o_sap_vc);
  let costC = world_constraints(w, L.o_sap_vc, L.o_sap_gamma, L.o_sap_G);
  if (L.solve_fp32 != 0u) {
    let rs = row_start(w);
    let nrows = 3u * L.capacity + DOF_ROWS * (u32(get_world_dof_start(w + 1u)) - d0);
    for (var r = 0u; r < nrows; r++) {
      set_sap_gamma(rs + r, cs_round(get_sap_gamma(rs + r)));
    }
    for (var e = u32(get_world_eq_start(w)); e < u32(get_world_eq_start(w + 1u)); e++) {
      for (var r = 0u; r < eq_rows(e); r++) {
        set_sap_gamma(eq_row(e) + r, cs_round(get_sap_gamma(eq_row(e) + r)));
      }
    }
  }
  // momentum terms: Ar = A(v − v*), p = A v, ℓ_A = ½(v − v*)ᵀA(v − v*)
  var ellA = df(0.0, 0.0);
  for (var t = tw0; t < tw1; t++) {
    let red = get_tree_red(t);
    if (red < 0) {
      continue;
    }
    let off = d0 + u32(red);
    let n = tree_nv(t);
    let a0 = u32(get_tree_A_start(t));
    for (var a = 0u; a < n; a++) {
      var s1 = df(0.0, 0.0);
      var s2 = df(0.0, 0.0);
      for (var m = 0u; m < n; m++) {
        let A = get_tree_A(a0 + a * n + m);
        s1 = df_add(s1, df_mul(A, df_sub(get_sap_v(off + m), get_sap_vstar(off + m))));
        s2 = df_add(s2, df_mul(A, get_sap_v(off + m)));
      }
      set_sap_Ar(off + a, s1);
      set_sap_p(off + a, s2);
      ellA = df_add(ellA, df_mul_f(df_mul(df_sub(get_sap_v(off + a), get_sap_vstar(off + a)), s1), 0.5));
    }
  }
  world_JTx(w, L.o_sap_gamma, L.o_sap_jv);
  var ok = true;
  for (var a = 0u; a < nvp; a++) {
    let jv = cs_round(get_sap_jv(d0 + a));
    set_sap_jv(d0 + a, jv);
    let g = cs_round(df_sub(get_sap_Ar(d0 + a), jv));
    set_sap_grad(d0 + a, g);
    if (df_nonfinite(g)) {
      ok = false;
    }
  }
  let ell = df_add(ellA, costC);
  set_sap_scalar(w, SS_ELL_A, ellA);
  set_sap_scalar(w, SS_ELL, ell);
  let k = u32(get_world_i(w, WI_ITERS));
  set_sap_cost(w * L.cost_stride + k, ell);
  set_world_i(w, WI_COSTS, i32(k + 1u));
  // the alternative start, evaluated: taken only at a lower (finite) cost, else back to v_n
  if (k == 0u && get_sap_start(w) == START_ALT_EVALUATED) {
    if (ok && !df_nonfinite(ell) && df_lt(ell, get_sap_scalar(w, SS_ELL_VN))) {
      set_sap_start(w, START_ALT_TAKEN);
    } else {
      load_start(w, false);
      set_sap_start(w, START_VN_AGAIN);
      atomicAdd(&counters[0], 1u);
      return;
    }
  }
  if (!ok || df_nonfinite(ell)) {
    set_world_i(w, WI_NONFINITE, NF_COST);
    set_status(w, ST_INVALID);
    return;
  }
  // convergence: ‖D∇ℓ‖ ≤ abs + rel·max(‖Dp‖, ‖Dj‖), or the cost criterion of the last update
  let ellPrev = get_sap_scalar(w, SS_ELL_PREV);
  let alpha = get_sap_scalar(w, SS_ALPHA);
  let dl = df_abs(df_sub(ellPrev, ell));
  let tolC = df_add(P_cost_abs_tol(), df_mul(P_cost_rel_tol(), df_mul_f(df_add(df_abs(ell), df_abs(ellPrev)), 0.5)));
  let costCriterion = k > 0u && df_lt(dl, tolC) && alpha.x > 0.5;
  var res2 = df(0.0, 0.0);
  var p2 = df(0.0, 0.0);
  var j2 = df(0.0, 0.0);
  for (var a = 0u; a < nvp; a++) {
    let dd = get_sap_dinv(d0 + a);
    res2 = df_add(res2, df_sqr(df_mul(dd, get_sap_grad(d0 + a))));
    p2 = df_add(p2, df_sqr(df_mul(dd, get_sap_p(d0 + a))));
    j2 = df_add(j2, df_sqr(df_mul(dd, get_sap_jv(d0 + a))));
  }
  let scale = df_max(df_sqrt(p2), df_sqrt(j2));
  let optimal = df_le(df_sqrt(res2), df_add(P_opt_abs_tol(), df_mul(P_opt_rel_tol(), scale)));
  // v_n evaluated and not optimal: evaluate the alternative start in a pass of its own
  if (k == 0u && get_sap_start(w) == START_VN_EVALUATED && !optimal) {
    set_sap_scalar(w, SS_ELL_VN, ell);
    load_start(w, true);
    set_sap_start(w, START_ALT_EVALUATED);
    set_world_i(w, WI_ACTIVE, 2);
    atomicAdd(&counters[0], 1u);
    return;
  }
  set_world_i(w, WI_ACTIVE, 1); // (back from an evaluation-only pass)
  if (optimal || costCriterion) {
    set_status(w, ST_CONVERGED);
    return;
  }
  if (k >= L.max_iterations) {
    set_status(w, ST_MAX_ITERATIONS);
    return;
  }
  atomicAdd(&counters[0], 1u);
}

// H = A + Σ JᵢᵀGᵢJᵢ over participating DOFs (lower triangle, row-major nvp × nvp) (assembleH)
@compute @workgroup_size(64)
fn sap_hessian(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let w = gid.x;
  if (w >= L.num_worlds || get_world_i(w, WI_ACTIVE) != 1) {
    return;
  }
  let d0 = wdof0(w);
  let np = u32(get_world_i(w, WI_NVP));
  let hb = u32(get_world_H_start(w));
  for (var a = 0u; a < np; a++) {
    for (var m = 0u; m <= a; m++) {
      set_sap_H(hb + a * np + m, df(0.0, 0.0));
    }
  }
  let tw0 = u32(get_world_tree_start(w));
  let tw1 = u32(get_world_tree_start(w + 1u));
  for (var t = tw0; t < tw1; t++) {
    let red = get_tree_red(t);
    if (red < 0) {
      continue;
    }
    let off = u32(red);
    let n = tree_nv(t);
    let a0 = u32(get_tree_A_start(t));
    for (var a = 0u; a < n; a++) {
      for (var m = 0u; m <= a; m++) {
        set_sap_H(hb + (off + a) * np + off + m, get_tree_A(a0 + a * n + m));
      }
    }
  }
  let gs = g_start(w);
  let cnt = u32(get_contact_count(w));
  for (var i = 0u; i < cnt; i++) {
    let s = w * L.capacity + i;
    if (!contact_live(s)) {
      continue;
    }
    var G: array<df, 9>;
    var nz = false;
    for (var k = 0u; k < 9u; k++) {
      G[k] = get_sap_G(gs + 9u * i + k);
      if (G[k].x != 0.0) {
        nz = true;
      }
    }
    if (!nz) {
      continue;
    }
    for (var bq = 0u; bq < 2u; bq++) {
      let tq = get_con_tree(s, bq);
      if (tq < 0) {
        continue;
      }
      let offQ = u32(get_tree_red(u32(tq)));
      let nq = tree_nv(u32(tq));
      let jq = con_J_base(s, bq);
      for (var bp = 0u; bp < 2u; bp++) {
        let tp = get_con_tree(s, bp);
        if (tp < 0) {
          continue;
        }
        let offP = u32(get_tree_red(u32(tp)));
        if (offP < offQ) {
          continue;
        }
        let np_ = tree_nv(u32(tp));
        let jp = con_J_base(s, bp);
        let same = offP == offQ;
        for (var a = 0u; a < np_; a++) {
          let row = hb + (offP + a) * np + offQ;
          var sEnd = nq;
          if (same) {
            sEnd = a + 1u;
          }
          for (var sc = 0u; sc < sEnd; sc++) {
            // Σ_k J_p[k][a] (G J_q)[k][sc]
            var acc = df(0.0, 0.0);
            for (var k = 0u; k < 3u; k++) {
              let jpa = data_d[jp + k * np_ + a];
              if (jpa.x == 0.0) {
                continue;
              }
              var t = df(0.0, 0.0);
              for (var l = 0u; l < 3u; l++) {
                t = df_add(t, df_mul(G[k * 3u + l], data_d[jq + l * nq + sc]));
              }
              acc = df_add(acc, df_mul(jpa, t));
            }
            set_sap_H(row + sc, df_add(get_sap_H(row + sc), acc));
          }
        }
      }
    }
  }
  let d1 = u32(get_world_dof_start(w + 1u));
  for (var d = d0; d < d1; d++) {
    let lr = get_lim_rows(d);
    let pd = get_pd_active(d);
    let fr = get_fr_active(d);
    if (lr == 0 && pd == 0 && fr == 0) {
      continue;
    }
    let gi = gs + 9u * L.capacity + DOF_ROWS * (d - d0);
    let r = red_of_dof(d);
    var add = df(0.0, 0.0);
    if ((lr & 1) != 0) {
      add = df_add(add, get_sap_G(gi));
    }
    if ((lr & 2) != 0) {
      add = df_add(add, get_sap_G(gi + 1u));
    }
    if (pd != 0) {
      add = df_add(add, get_sap_G(gi + 2u));
    }
    if (fr != 0) {
      add = df_add(add, get_sap_G(gi + 3u));
    }
    set_sap_H(hb + r * np + r, df_add(get_sap_H(hb + r * np + r), add));
  }
  // equalities: Σ_k J_p[k][a] G_k J_q[k][sc] (G diagonal)
  for (var e = u32(get_world_eq_start(w)); e < u32(get_world_eq_start(w + 1u)); e++) {
    if (!eq_live(e)) {
      continue;
    }
    let nr = eq_rows(e);
    let gi = eq_gi(e);
    for (var bq = 0u; bq < 2u; bq++) {
      let tq = get_eq_tree(e, bq);
      if (tq < 0) {
        continue;
      }
      let offQ = u32(get_tree_red(u32(tq)));
      let nq = tree_nv(u32(tq));
      let jq = eq_J_base(e, bq);
      for (var bp = 0u; bp < 2u; bp++) {
        let tp = get_eq_tree(e, bp);
        if (tp < 0) {
          continue;
        }
        let offP = u32(get_tree_red(u32(tp)));
        if (offP < offQ) {
          continue;
        }
        let np_ = tree_nv(u32(tp));
        let jp = eq_J_base(e, bp);
        let same = offP == offQ;
        for (var a = 0u; a < np_; a++) {
          let row = hb + (offP + a) * np + offQ;
          var sEnd = nq;
          if (same) {
            sEnd = a + 1u;
          }
          for (var sc = 0u; sc < sEnd; sc++) {
            var acc = df(0.0, 0.0);
            for (var k = 0u; k < nr; k++) {
              let jpa = data_d[jp + k * np_ + a];
              if (jpa.x == 0.0) {
                continue;
              }
              acc = df_add(acc, df_mul(jpa, df_mul(get_sap_G(gi + k), data_d[jq + k * nq + sc])));
            }
            set_sap_H(row + sc, df_add(get_sap_H(row + sc), acc));
          }
        }
      }
    }
  }
  if (L.solve_fp32 != 0u) {
    for (var a = 0u; a < np; a++) {
      for (var m = 0u; m <= a; m++) {
        set_sap_H(hb + a * np + m, cs_round(get_sap_H(hb + a * np + m)));
      }
    }
  }
}

// φ(α) = ℓ(v + αΔv) and its derivatives (evalAlongLine): the quadratic term from ℓ_A, Δpᵀ(v − v*)
// and ΔvᵀAΔv, the constraint terms re-evaluated at vc + α·Δvc, one constraint at a time
struct LineSample {
  phi: df,
  dphi: df,
  d2phi: df,
}

fn line_eval(w: u32, alpha: df, order: u32) -> LineSample {
  let ellA0 = get_sap_scalar(w, SS_ELL_A);
  let dpr = get_sap_scalar(w, SS_DPR);
  let d2A = get_sap_scalar(w, SS_D2A);
  var cost = df_add(df_add(ellA0, df_mul(alpha, dpr)), df_mul_f(df_mul(df_mul(alpha, alpha), d2A), 0.5));
  var sg = df(0.0, 0.0);
  var sG = df(0.0, 0.0);
  let rs = row_start(w);
  let cnt = u32(get_contact_count(w));
  for (var i = 0u; i < cnt; i++) {
    let s = w * L.capacity + i;
    if (!contact_live(s)) {
      continue;
    }
    let r = rs + 3u * i;
    var vt: array<df, 3>;
    var dv: array<df, 3>;
    for (var k = 0u; k < 3u; k++) {
      dv[k] = get_sap_dvc(r + k);
      vt[k] = df_add(get_sap_vc(r + k), df_mul(alpha, dv[k]));
    }
    let e = contact_calc(s, vt);
    cost = df_add(cost, e.cost);
    if (order >= 1u) {
      for (var k = 0u; k < 3u; k++) {
        sg = df_add(sg, df_mul(dv[k], e.g[k]));
      }
    }
    if (order == 2u) {
      for (var k = 0u; k < 3u; k++) {
        var gk = df(0.0, 0.0);
        for (var l = 0u; l < 3u; l++) {
          gk = df_add(gk, df_mul(e.G[k * 3u + l], dv[l]));
        }
        sG = df_add(sG, df_mul(dv[k], gk));
      }
    }
  }
  let d0 = wdof0(w);
  let d1 = u32(get_world_dof_start(w + 1u));
  for (var d = d0; d < d1; d++) {
    let lr = get_lim_rows(d);
    let r = rs + 3u * L.capacity + DOF_ROWS * (d - d0);
    for (var side = 0u; side < 2u; side++) {
      if ((lr & (1 << side)) == 0) {
        continue;
      }
      let dv = get_sap_dvc(r + side);
      let e = limit_row_calc(get_lim_param(d, 2u * side), get_lim_param(d, 2u * side + 1u), df_add(get_sap_vc(r + side), df_mul(alpha, dv)));
      cost = df_add(cost, e.cost);
      sg = df_add(sg, df_mul(dv, e.g));
      sG = df_add(sG, df_mul(dv, df_mul(e.G, dv)));
    }
    for (var k = 2u; k < DOF_ROWS; k++) {
      if (!dof_row_on(d, k)) {
        continue;
      }
      let dv = get_sap_dvc(r + k);
      let e = dof_row_calc(d, k, df_add(get_sap_vc(r + k), df_mul(alpha, dv)));
      cost = df_add(cost, e.cost);
      sg = df_add(sg, df_mul(dv, e.g));
      sG = df_add(sG, df_mul(dv, df_mul(e.G, dv)));
    }
  }
  for (var e = u32(get_world_eq_start(w)); e < u32(get_world_eq_start(w + 1u)); e++) {
    if (!eq_live(e)) {
      continue;
    }
    let r = eq_row(e);
    var ce = df(0.0, 0.0);
    for (var k = 0u; k < eq_rows(e); k++) {
      let dv = get_sap_dvc(r + k);
      let h = eq_row_calc(e, k, df_add(get_sap_vc(r + k), df_mul(alpha, dv)));
      ce = df_add(ce, h.cost);
      sg = df_add(sg, df_mul(dv, h.g));
      sG = df_add(sG, df_mul(dv, df_mul(h.G, dv)));
    }
    cost = df_add(cost, ce);
  }
  var out: LineSample;
  out.phi = cost;
  out.dphi = df_sub(df_add(dpr, df_mul(alpha, d2A)), sg);
  out.d2phi = df_add(d2A, sG);
  return out;
}

const MONOTONE_MIN_ALPHA: f32 = 1e-8;
const EXACT_ALPHA_MAX: f32 = 1.5;
const EXACT_F_TOL: f32 = 1e-8;

fn sign_df(x: df) -> f32 {
  if (x.x > 0.0) {
    return 1.0;
  }
  if (x.x < 0.0) {
    return -1.0;
  }
  return 0.0;
}

// outcome of a line-search step of the state machine below
const LS_CONTINUE: u32 = 0u;
const LS_OK: u32 = 1u;
const LS_FAIL: u32 = 2u;

// The three line searches (engine/sap/linesearch.ts) as one state machine around a single call of
// line_eval, which keeps the kernel small (compilers inline every call site):
//   monotone_decay: α = 1, ½, ¼, … until φ(α) ≤ φ(0) + 1e-14 + 1e-12|φ(0)| (fail below 1e-8);
//   armijo_decay:   probe 1/ρ (accept if φ′ < 0 or below the slop), then 1, ρ, ρ², … with the
//                   Armijo and finite-difference slope tests;
//   exact_root:     probe α_max = 1.5, then the root of φ′ by Newton with bisection (rtsafe).
@compute @workgroup_size(64)
fn sap_linesearch(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let w = gid.x;
  if (w >= L.num_worlds || get_world_i(w, WI_ACTIVE) != 1) {
    return;
  }
  let phi0 = get_sap_scalar(w, SS_ELL);
  let dphi0 = get_sap_scalar(w, SS_DPHI0);
  let variant = L.ls_variant;
  let maxIt = L.ls_max_iterations;
  let one = df(1.0, 0.0);
  let rho = P_rho();
  let c = P_armijo_c();
  let amax = df(EXACT_ALPHA_MAX, 0.0);
  var outcome = LS_CONTINUE;
  var result = one;
  var it = 0u;
  var alpha = one;
  var order = 0u;
  var phase = 0u;
  var k = 1u;
  // monotone
  let thr = df_add(df_add(phi0, df(1e-14, 0.0)), df_mul(df(1e-12, 0.0), df_abs(phi0)));
  // armijo
  var slop = df(0.0, 0.0);
  var alphaPrev = one;
  var phiPrev = one;
  var armijoPrev = false;
  var armijo = false;
  // exact
  var scale = one;
  var alphaTol = one;
  var xl = df(0.0, 0.0);
  var xu = amax;
  var fu = one;
  var mdx = one;
  var mdxPrev = one;
  if (variant == 1u || variant == 2u) {
    if (!(dphi0.x < 0.0)) {
      outcome = LS_FAIL;
      result = df(0.0, 0.0);
    } else if (variant == 1u) {
      alpha = df_div(one, rho);
      order = 1u;
    } else {
      alpha = amax;
      order = 2u;
    }
  }
  loop {
    if (outcome != LS_CONTINUE) {
      break;
    }
    if (variant == 0u && (!(alpha.x >= MONOTONE_MIN_ALPHA) || it >= maxIt)) {
      outcome = LS_FAIL;
      result = alpha;
      break;
    }
    let sm = line_eval(w, alpha, order);
    it++;
    if (variant == 0u) {
      if (df_le(sm.phi, thr)) {
        outcome = LS_OK;
        result = alpha;
      } else {
        alpha = df_mul_f(alpha, 0.5);
      }
      continue;
    }
    if (variant == 1u) {
      if (phase == 0u) {
        if (sm.dphi.x < 0.0) {
          outcome = LS_OK;
          result = alpha;
          continue;
        }
        slop = df_mul(df_mul_f(P_ls_slop(), 0.1), df_max(one, df_mul_f(df_add(df_abs(sm.phi), df_abs(phi0)), 0.5)));
        if (df_lt(sm.dphi, slop)) {
          outcome = LS_OK;
          result = alpha;
          continue;
        }
        alphaPrev = alpha;
        phiPrev = sm.phi;
        armijoPrev = df_lt(sm.phi, df_add(phi0, df_mul(df_mul(c, alpha), dphi0)));
        armijo = armijoPrev;
        phase = 1u;
        order = 0u;
      } else {
        let phi = sm.phi;
        armijo = df_lt(phi, df_add(phi0, df_mul(df_mul(c, alpha), dphi0)));
        let slope = df_div(df_sub(phi, phiPrev), df_sub(alpha, alphaPrev));
        if (df_lt(df_abs(slope), slop)) {
          outcome = LS_OK;
          result = alpha;
          continue;
        }
        if (df_gt(phi, phiPrev) && armijo) {
          outcome = LS_OK;
          result = alpha;
          if (armijoPrev) {
            result = alphaPrev;
          }
          continue;
        }
        alphaPrev = alpha;
        phiPrev = phi;
        armijoPrev = armijo;
        k++;
      }
      if (k >= maxIt) {
        result = alpha;
        outcome = LS_FAIL;
        if (armijo) {
          outcome = LS_OK;
        }
        continue;
      }
      alpha = df_mul(alpha, rho);
      continue;
    }
    // exact_root
    if (phase == 0u) {
      if (sm.dphi.x <= 0.0) {
        outcome = LS_OK;
        result = amax;
        continue;
      }
      if (df_lt(-dphi0, df_add(P_cost_abs_tol(), df_mul(P_cost_rel_tol(), sm.phi)))) {
        outcome = LS_OK;
        result = one;
        continue;
      }
      scale = -dphi0;
      var guess = df_div(-dphi0, sm.d2phi);
      if (!(guess.x >= 0.0)) {
        if (guess.x < 0.0) {
          guess = df(0.0, 0.0);
        } else {
          guess = amax;
        }
      }
      if (df_gt(guess, amax)) {
        guess = amax;
      }
      alphaTol = df_mul_f(amax, EXACT_F_TOL);
      if (guess.x > 0.0) {
        alphaTol = df_mul_f(guess, EXACT_F_TOL);
      }
      fu = df_div(sm.dphi, scale);
      if (abs(fu.x) < EXACT_F_TOL) {
        outcome = LS_OK;
        result = xu;
        continue;
      }
      mdx = df_sub(xl, xu);
      mdxPrev = mdx;
      alpha = guess;
      phase = 1u;
    } else {
      let root = alpha;
      let fx = df_div(sm.dphi, scale);
      let dfx = df_div(sm.d2phi, scale);
      if (sign_df(fx) != sign_df(fu)) {
        xl = root;
      } else {
        xu = root;
        fu = fx;
      }
      if (df_lt(df_abs(fx), df(EXACT_F_TOL, 0.0))) {
        outcome = LS_OK;
        result = root;
        continue;
      }
      let slow = df_gt(df_mul_f(df_abs(fx), 2.0), df_abs(df_mul(mdxPrev, dfx)));
      mdxPrev = mdx;
      var bisect = slow;
      var next = root;
      if (!slow) {
        let step = df_div(fx, dfx);
        let cand = df_sub(root, step);
        if (!df_nonfinite(cand) && df_ge(cand, xl) && df_le(cand, xu)) {
          mdx = step;
          next = cand;
        } else {
          bisect = true;
        }
      }
      if (bisect) {
        mdx = df_mul_f(df_sub(xl, xu), 0.5);
        next = df_sub(xl, mdx);
      }
      alpha = next;
      if (df_lt(df_abs(mdx), alphaTol)) {
        outcome = LS_OK;
        result = next;
        continue;
      }
      k++;
    }
    if (k > maxIt) {
      outcome = LS_FAIL;
      result = alpha;
    }
  }
  set_world_i(w, WI_LS_ITERS, get_world_i(w, WI_LS_ITERS) + i32(it));
  if (outcome != LS_OK) {
    set_status(w, ST_LS_FAILED);
    return;
  }
  let d0 = wdof0(w);
  let nvp = u32(get_world_i(w, WI_NVP));
  for (var a = 0u; a < nvp; a++) {
    set_sap_v(d0 + a, cs_round(df_add(get_sap_v(d0 + a), df_mul(result, get_sap_dv(d0 + a)))));
  }
  set_sap_scalar(w, SS_ALPHA, result);
  set_sap_scalar(w, SS_ELL_PREV, phi0);
  set_world_i(w, WI_ITERS, get_world_i(w, WI_ITERS) + 1);
}

// unpacks v into v_next (non-participating trees keep v*) and writes the contact results (pack)
@compute @workgroup_size(64)
fn sap_finish(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let w = gid.x;
  if (w >= L.num_worlds) {
    return;
  }
  let d0 = wdof0(w);
  let d1 = u32(get_world_dof_start(w + 1u));
  let nvp = u32(get_world_i(w, WI_NVP));
  // joint-constraint efforts: 0 unless the solve below yields them
  for (var d = d0; d < d1; d++) {
    for (var k = 0u; k < 3u; k++) {
      set_dof_effort(d, k, df(0.0, 0.0));
    }
  }
  // worlds decided in sap_setup (invalid input, no constraints) already hold v_next
  if (nvp == 0u || get_world_i(w, WI_NONFINITE) == NF_FREE_MOTION || get_world_i(w, WI_NONFINITE) == NF_V_STAR || get_world_i(w, WI_NONFINITE) == NF_CONTACT || get_world_i(w, WI_NONFINITE) == NF_EQUALITY) {
    return;
  }
  for (var d = d0; d < d1; d++) {
    set_v_next(d, get_v_star(d));
  }
  var finite = true;
  for (var a = 0u; a < nvp; a++) {
    let v = get_sap_v(d0 + a);
    if (df_nonfinite(v)) {
      finite = false;
    }
    set_v_next(u32(get_red_dof(d0 + a)), v);
  }
  if (!finite) {
    set_world_i(w, WI_NONFINITE, NF_V);
    set_world_i(w, WI_STATUS, ST_INVALID);
    for (var d = d0; d < d1; d++) {
      set_v_next(d, get_v_n(d));
    }
    return;
  }
  // contact force on body 1 = R_WC γ / dt, point, stick/slip/open at the final vc
  let dt = P_dt();
  let rs = row_start(w);
  let cnt = u32(get_contact_count(w));
  for (var i = 0u; i < cnt; i++) {
    let s = w * L.capacity + i;
    if (!contact_live(s)) {
      continue;
    }
    let r = rs + 3u * i;
    let g0 = get_sap_gamma(r);
    let g1 = get_sap_gamma(r + 1u);
    let g2 = get_sap_gamma(r + 2u);
    for (var k = 0u; k < 3u; k++) {
      let f = df_add(df_add(df_mul(get_con_frame(s, k), g0), df_mul(get_con_frame(s, 3u + k), g1)), df_mul(get_con_frame(s, 6u + k), g2));
      set_con_force(s, k, df_div(f, dt));
    }
    let e = contact_calc(s, array<df, 3>(get_sap_vc(r), get_sap_vc(r + 1u), get_sap_vc(r + 2u)));
    var slip = SLIP_OPEN_N;
    if (e.region == REGION_STICK) {
      slip = SLIP_STICK_N;
    } else if (e.region == REGION_SLIP) {
      slip = SLIP_SLIP_N;
    }
    set_con_slip(s, slip);
  }
  // joint-constraint efforts γ/dt per DOF (jointEffortsFromImpulses): limit (lower row minus upper
  // row, whose Jacobian is −1), PD drive, dry friction
  for (var d = d0; d < d1; d++) {
    let lr = get_lim_rows(d);
    let r = rs + 3u * L.capacity + DOF_ROWS * (d - d0);
    var limit = df(0.0, 0.0);
    if ((lr & 1) != 0) {
      limit = get_sap_gamma(r);
    }
    if ((lr & 2) != 0) {
      limit = df_sub(limit, get_sap_gamma(r + 1u));
    }
    set_dof_effort(d, 0u, df_div(limit, dt));
    if (get_pd_active(d) != 0) {
      set_dof_effort(d, 1u, df_div(get_sap_gamma(r + 2u), dt));
    }
    if (get_fr_active(d) != 0) {
      set_dof_effort(d, 2u, df_div(get_sap_gamma(r + 3u), dt));
    }
  }
}
