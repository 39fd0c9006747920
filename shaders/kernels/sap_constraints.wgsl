// SAP constraint kernels and the per-world constraint walk, the twins of
// engine/sap/constraints/{contact,limit,pd,holonomic,tendon}.ts and of the Jacobian products in
// engine/sap/solver.ts.
// All df64 (contact_solve_precision fp64; fp32 rounds the stored results, see sap_newton.wgsl).
//
// Per-world storage (w = world, C = contact capacity, dof_w = world_dof_start[w]):
//   rows  (sap_vc, sap_dvc, sap_gamma) at row_start(w) = 3·C·w + 4·dof_w:
//           contact slot i → rows 3i..3i+2;  DOF d (local index l) → 3C + 4l (+0 lower limit,
//           +1 upper limit, +2 PD, +3 joint friction; DOF_ROWS = 4)
//   G     (sap_G) at g_start(w) = 9·C·w + 4·dof_w: contact i → 9i (3×3); DOF l → 9C + 4l (+0 … +3:
//           diagonal entries of the limit rows, the PD row and the friction row)
//   equality slot e (after every world's rows): rows at eq_row(e) = 3·slots + 4·dofs + 6e, its
//           diagonal G at eq_gi(e) = 9·slots + 4·dofs + 6e; Jacobian blocks (6 × nv_tree) at
//           eq_J_base. A slot is an equality constraint or a fixed tendon (EQ_TENDON: two
//           unilateral rows, lower then upper; a row outside the step's window has J = 0 and a
//           record that gives γ = 0)
//   reduced vectors (sap_v, …) at dof_w + r, r = tree_red[tree] + (d − tree_dof_start[tree])
// Constraint order (the reference's): contacts by slot, then per DOF the limit, the PD drive and
// the joint friction, then the world's equalities (equality_constraints.ts order), then its fixed tendons, then its cone limits.

// constraint rows per DOF (engine/model/layout.ts DOF_ROWS)
const DOF_ROWS: u32 = 4u;

const SOFT_NORM_EPS2 = df(9.9999998245167e-15, 1.7548329481321553e-22);
const INV_4PI2 = df(0.02533029578626156, 1.243228853198275e-10);

const REGION_STICK: u32 = 0u;
const REGION_SLIP: u32 = 1u;
const REGION_OPEN: u32 = 2u;

// world status codes (world_i[1])
const ST_CONVERGED: i32 = 0;
const ST_MAX_ITERATIONS: i32 = 1;
const ST_LS_FAILED: i32 = 2;
const ST_INVALID: i32 = 3;

// world_i components
const WI_NVP: u32 = 0u;
const WI_STATUS: u32 = 1u;
const WI_ACTIVE: u32 = 2u;
const WI_ITERS: u32 = 3u;
const WI_LS_ITERS: u32 = 4u;
const WI_NONFINITE: u32 = 5u;
const WI_COSTS: u32 = 6u;

// sap_scalar components
const SS_ELL: u32 = 0u;
const SS_ELL_PREV: u32 = 1u;
const SS_ALPHA: u32 = 2u;
const SS_ELL_A: u32 = 3u;
const SS_DPR: u32 = 4u;
const SS_D2A: u32 = 5u;
const SS_DPHI0: u32 = 6u;

fn row_start(w: u32) -> u32 {
  return 3u * L.capacity * w + DOF_ROWS * u32(get_world_dof_start(w));
}

fn g_start(w: u32) -> u32 {
  return 9u * L.capacity * w + DOF_ROWS * u32(get_world_dof_start(w));
}

fn tree_nv(t: u32) -> u32 {
  return u32(get_tree_dof_start(t + 1u)) - u32(get_tree_dof_start(t));
}

// data_d element of the start of contact slot s's Jacobian block b (3 × nv_tree, row-major)
fn con_J_base(s: u32, b: u32) -> u32 {
  return L.o_con_J + s * 6u * L.max_tree_nv + b * 3u * L.max_tree_nv;
}

// reduced index of DOF d (its tree must participate)
fn red_of_dof(d: u32) -> u32 {
  let t = u32(get_dof_tree(d));
  return u32(get_tree_red(t)) + d - u32(get_tree_dof_start(t));
}

// equalities (EqualityType)
const EQ_COUPLER: i32 = 0;
const EQ_BALL: i32 = 1;
const EQ_WELD: i32 = 2;
const EQ_TENDON: i32 = 3;
// a ball joint's cone limit: a tendon's two rows, the lower one always without J (equality.wgsl)
const EQ_CONE: i32 = 4;

fn eq_rows(e: u32) -> u32 {
  let ty = get_eq_type(e);
  if (ty == EQ_COUPLER) {
    return 1u;
  }
  if (ty == EQ_BALL) {
    return 3u;
  }
  if (ty == EQ_TENDON || ty == EQ_CONE) {
    return 2u;
  }
  return 6u;
}

// data_d element of the start of equality e's Jacobian block b (rows × nv_tree, row-major)
fn eq_J_base(e: u32, b: u32) -> u32 {
  return L.o_eq_J + e * 12u * L.max_tree_nv + b * 6u * L.max_tree_nv;
}

fn eq_row(e: u32) -> u32 {
  return 3u * L.slot_count + DOF_ROWS * L.dof_count + 6u * e;
}

fn eq_gi(e: u32) -> u32 {
  return 9u * L.slot_count + DOF_ROWS * L.dof_count + 6u * e;
}

fn eq_live(e: u32) -> bool {
  return get_eq_active(e) == 1;
}

// holonomic row (holonomicCalc): y = (v̂ − vc)/R, γ = y, ℓ = ½Ry², G = 1/R
fn holo_row_calc(R: df, vhat: df, vc: df) -> RowEval {
  let y = df_div(df_sub(vhat, vc), R);
  return RowEval(df_mul(df_mul(df_mul_f(R, 0.5), y), y), y, df_div(df(1.0, 0.0), R));
}

// row k of equality slot e at vc: bilateral (holonomicCalc), or unilateral for a tendon (limitCalc)
fn eq_row_calc(e: u32, k: u32, vc: df) -> RowEval {
  let R = get_eq_param(e, 2u * k);
  let vhat = get_eq_param(e, 2u * k + 1u);
  let ty = get_eq_type(e);
  if (ty == EQ_TENDON || ty == EQ_CONE) {
    return limit_row_calc(R, vhat, vc);
  }
  return holo_row_calc(R, vhat, vc);
}

fn contact_live(s: u32) -> bool {
  return get_con_active(s) == 1;
}

// vc of contact s = Σ_blocks J_b · x (x: reduced vector at data_d element xb)
fn contact_Jx(s: u32, xb: u32) -> array<df, 3> {
  var out = array<df, 3>(df(0.0, 0.0), df(0.0, 0.0), df(0.0, 0.0));
  for (var b = 0u; b < 2u; b++) {
    let t = get_con_tree(s, b);
    if (t < 0) {
      continue;
    }
    let nv = tree_nv(u32(t));
    let red = get_tree_red(u32(t));
    if (red < 0) {
      continue;
    }
    let jb = con_J_base(s, b);
    for (var k = 0u; k < 3u; k++) {
      var acc = df(0.0, 0.0);
      for (var m = 0u; m < nv; m++) {
        acc = df_add(acc, df_mul(data_d[jb + k * nv + m], data_d[xb + u32(red) + m]));
      }
      out[k] = df_add(out[k], acc);
    }
  }
  return out;
}

// all constraint rows of world w: out (row field base) = J · x (reduced vector base)
fn world_Jx(w: u32, xb: u32, outb: u32) {
  let rs = row_start(w);
  let cnt = u32(get_contact_count(w));
  for (var i = 0u; i < cnt; i++) {
    let s = w * L.capacity + i;
    if (!contact_live(s)) {
      continue;
    }
    let v = contact_Jx(s, xb);
    data_d[outb + rs + 3u * i] = v[0];
    data_d[outb + rs + 3u * i + 1u] = v[1];
    data_d[outb + rs + 3u * i + 2u] = v[2];
  }
  let d0 = u32(get_world_dof_start(w));
  let d1 = u32(get_world_dof_start(w + 1u));
  for (var d = d0; d < d1; d++) {
    let lr = get_lim_rows(d);
    let pd = get_pd_active(d);
    let fr = get_fr_active(d);
    if (lr == 0 && pd == 0 && fr == 0) {
      continue;
    }
    let x = data_d[xb + red_of_dof(d)];
    let r = rs + 3u * L.capacity + DOF_ROWS * (d - d0);
    if ((lr & 1) != 0) {
      data_d[outb + r] = x;
    }
    if ((lr & 2) != 0) {
      data_d[outb + r + 1u] = -x;
    }
    if (pd != 0) {
      data_d[outb + r + 2u] = x;
    }
    if (fr != 0) {
      data_d[outb + r + 3u] = x;
    }
  }
  for (var e = u32(get_world_eq_start(w)); e < u32(get_world_eq_start(w + 1u)); e++) {
    if (!eq_live(e)) {
      continue;
    }
    let nr = eq_rows(e);
    let r = eq_row(e);
    for (var k = 0u; k < nr; k++) {
      data_d[outb + r + k] = df(0.0, 0.0);
    }
    for (var b = 0u; b < 2u; b++) {
      let t = get_eq_tree(e, b);
      if (t < 0) {
        continue;
      }
      let nv = tree_nv(u32(t));
      let red = u32(get_tree_red(u32(t)));
      let jb = eq_J_base(e, b);
      for (var k = 0u; k < nr; k++) {
        var acc = df(0.0, 0.0);
        for (var m = 0u; m < nv; m++) {
          acc = df_add(acc, df_mul(data_d[jb + k * nv + m], data_d[xb + red + m]));
        }
        data_d[outb + r + k] = df_add(data_d[outb + r + k], acc);
      }
    }
  }
}

struct ConEval {
  cost: df,
  g: array<df, 3>,
  G: array<df, 9>,
  region: u32,
}

fn con_param(s: u32, k: u32) -> df {
  return get_con_param(s, k);
}

// contactCalc: y = R⁻¹(v̂ − vc), projection onto the friction cone
fn contact_calc(s: u32, vc: array<df, 3>) -> ConEval {
  let mu = con_param(s, 0u);
  let Rt = con_param(s, 1u);
  let Rn = con_param(s, 2u);
  let y0 = df_div(-vc[0], Rt);
  let y1 = df_div(-vc[1], Rt);
  let yn = df_div(df_sub(con_param(s, 3u), vc[2]), Rn);
  let yr = df_sqrt(df_add(df_add(df_mul(y0, y0), df_mul(y1, y1)), SOFT_NORM_EPS2));
  var e: ConEval;
  let z = df(0.0, 0.0);
  e.G = array<df, 9>(z, z, z, z, z, z, z, z, z);
  e.g = array<df, 3>(z, z, z);
  e.cost = z;
  if (df_le(yr, df_mul(mu, yn))) {
    e.region = REGION_STICK;
    e.g = array<df, 3>(y0, y1, yn);
    let it = df_div(df(1.0, 0.0), Rt);
    e.G[0] = it;
    e.G[4] = it;
    e.G[8] = df_div(df(1.0, 0.0), Rn);
    e.cost = df_mul_f(df_add(df_mul(Rt, df_add(df_mul(y0, y0), df_mul(y1, y1))), df_mul(Rn, df_mul(yn, yn))), 0.5);
    return e;
  }
  let muHat = con_param(s, 4u);
  if (df_gt(yn, -df_mul(muHat, yr))) {
    e.region = REGION_SLIP;
    let F = con_param(s, 5u);
    let sv = df_add(yn, df_mul(muHat, yr));
    let gn = df_mul(sv, F);
    let t0 = df_div(y0, yr);
    let t1 = df_div(y1, yr);
    let mgn = df_mul(mu, gn);
    e.g = array<df, 3>(df_mul(mgn, t0), df_mul(mgn, t1), gn);
    let a = df_div(df_div(mgn, yr), Rt);
    let b = df_div(df_mul(df_mul(mu, muHat), F), Rt);
    let c = df_div(df_mul(mu, F), Rn);
    let one = df(1.0, 0.0);
    let t00 = df_mul(t0, t0);
    let t11 = df_mul(t1, t1);
    e.G[0] = df_add(df_mul(a, df_sub(one, t00)), df_mul(b, t00));
    e.G[1] = df_mul(df_mul(df_sub(b, a), t0), t1);
    e.G[2] = df_mul(c, t0);
    e.G[3] = e.G[1];
    e.G[4] = df_add(df_mul(a, df_sub(one, t11)), df_mul(b, t11));
    e.G[5] = df_mul(c, t1);
    e.G[6] = df_mul(c, t0);
    e.G[7] = df_mul(c, t1);
    e.G[8] = df_div(F, Rn);
    e.cost = df_mul_f(df_mul(df_mul(Rn, df_mul(sv, sv)), F), 0.5);
    return e;
  }
  e.region = REGION_OPEN;
  return e;
}

// limit row: y = (v̂ − vc)/R; γ = max(0, y), ℓ = ½Rγ², G = 1/R where y > 0
struct RowEval {
  cost: df,
  g: df,
  G: df,
}

fn limit_row_calc(R: df, vhat: df, vc: df) -> RowEval {
  let y = df_div(df_sub(vhat, vc), R);
  if (y.x > 0.0) {
    return RowEval(df_mul_f(df_mul(R, df_mul(y, y)), 0.5), y, df_div(df(1.0, 0.0), R));
  }
  return RowEval(df(0.0, 0.0), df(0.0, 0.0), df(0.0, 0.0));
}

// pdCalc: y = −Kp(q₀ + δt·v − q_d) − Kd(v − v_d) + u₀, u = clamp(y, ±e), γ = δt·u
fn pd_calc(d: u32, v: df) -> RowEval {
  let dt = get_pd_param(d, 0u);
  let kp = get_pd_param(d, 1u);
  let kd = get_pd_param(d, 2u);
  let e = get_pd_param(d, 3u);
  let q = df_sub(df_add(get_pd_param(d, 4u), df_mul(dt, v)), get_pd_param(d, 5u));
  let y = df_add(df_sub(-df_mul(kp, q), df_mul(kd, df_sub(v, get_pd_param(d, 6u)))), get_pd_param(d, 7u));
  let c = df_add(df_mul(dt, kp), kd);
  var psi: df;
  var u: df;
  var g = df(0.0, 0.0);
  if (df_gt(y, e)) {
    psi = df_mul(e, df_sub(y, df_mul_f(e, 0.5)));
    u = e;
  } else if (df_lt(y, -e)) {
    psi = -df_mul(e, df_add(y, df_mul_f(e, 0.5)));
    u = -e;
  } else {
    psi = df_mul_f(df_mul(y, y), 0.5);
    u = y;
    g = df_mul(dt, c);
  }
  return RowEval(df_div(df_mul(dt, psi), c), df_mul(dt, u), g);
}

// joint friction (joint_friction.ts, as the reference's PD record with Kp = 0, Kd = 1/(δt·R)):
// γ = clamp(−vc/R, ±γ_max), ℓ = vc²/(2R) in stiction, γ_max·|vc| − R·γ_max²/2 sliding
fn friction_calc(d: u32, v: df) -> RowEval {
  let R = get_fr_param(d, 0u);
  let gmax = get_fr_param(d, 1u);
  let y = df_div(-v, R);
  if (df_gt(y, gmax)) {
    return RowEval(df_sub(df_mul(gmax, -v), df_mul_f(df_mul(R, df_mul(gmax, gmax)), 0.5)), gmax, df(0.0, 0.0));
  }
  if (df_lt(y, -gmax)) {
    return RowEval(df_sub(df_mul(gmax, v), df_mul_f(df_mul(R, df_mul(gmax, gmax)), 0.5)), -gmax, df(0.0, 0.0));
  }
  return RowEval(df_mul_f(df_mul(R, df_mul(y, y)), 0.5), y, df_div(df(1.0, 0.0), R));
}

// a DOF's one-row constraints after its limit rows: row 2 the PD drive, row 3 the joint friction
fn dof_row_on(d: u32, k: u32) -> bool {
  if (k == 2u) {
    return get_pd_active(d) != 0;
  }
  return get_fr_active(d) != 0;
}

fn dof_row_calc(d: u32, k: u32, v: df) -> RowEval {
  if (k == 2u) {
    return pd_calc(d, v);
  }
  return friction_calc(d, v);
}

// evaluates every constraint of world w at the rows in `vcb` (row field base); writes γ into
// `gb` and G into `Gb` when those are not 0xffffffff; returns Σ ℓᵢ
const NO_OUT: u32 = 0xffffffffu;

fn world_constraints(w: u32, vcb: u32, gb: u32, Gb: u32) -> df {
  let rs = row_start(w);
  let gs = g_start(w);
  var cost = df(0.0, 0.0);
  let cnt = u32(get_contact_count(w));
  for (var i = 0u; i < cnt; i++) {
    let s = w * L.capacity + i;
    if (!contact_live(s)) {
      continue;
    }
    let r = rs + 3u * i;
    let e = contact_calc(s, array<df, 3>(data_d[vcb + r], data_d[vcb + r + 1u], data_d[vcb + r + 2u]));
    cost = df_add(cost, e.cost);
    if (gb != NO_OUT) {
      for (var k = 0u; k < 3u; k++) {
        data_d[gb + r + k] = e.g[k];
      }
    }
    if (Gb != NO_OUT) {
      for (var k = 0u; k < 9u; k++) {
        data_d[Gb + gs + 9u * i + k] = e.G[k];
      }
    }
  }
  let d0 = u32(get_world_dof_start(w));
  let d1 = u32(get_world_dof_start(w + 1u));
  for (var d = d0; d < d1; d++) {
    let lr = get_lim_rows(d);
    let r = rs + 3u * L.capacity + DOF_ROWS * (d - d0);
    let gi = gs + 9u * L.capacity + DOF_ROWS * (d - d0);
    for (var side = 0u; side < 2u; side++) {
      if ((lr & (1 << side)) == 0) {
        continue;
      }
      let e = limit_row_calc(get_lim_param(d, 2u * side), get_lim_param(d, 2u * side + 1u), data_d[vcb + r + side]);
      cost = df_add(cost, e.cost);
      if (gb != NO_OUT) {
        data_d[gb + r + side] = e.g;
      }
      if (Gb != NO_OUT) {
        data_d[Gb + gi + side] = e.G;
      }
    }
    for (var k = 2u; k < DOF_ROWS; k++) {
      if (!dof_row_on(d, k)) {
        continue;
      }
      let e = dof_row_calc(d, k, data_d[vcb + r + k]);
      cost = df_add(cost, e.cost);
      if (gb != NO_OUT) {
        data_d[gb + r + k] = e.g;
      }
      if (Gb != NO_OUT) {
        data_d[Gb + gi + k] = e.G;
      }
    }
  }
  for (var e = u32(get_world_eq_start(w)); e < u32(get_world_eq_start(w + 1u)); e++) {
    if (!eq_live(e)) {
      continue;
    }
    let nr = eq_rows(e);
    let r = eq_row(e);
    let gi = eq_gi(e);
    var ce = df(0.0, 0.0);
    for (var k = 0u; k < nr; k++) {
      let h = eq_row_calc(e, k, data_d[vcb + r + k]);
      ce = df_add(ce, h.cost);
      if (gb != NO_OUT) {
        data_d[gb + r + k] = h.g;
      }
      if (Gb != NO_OUT) {
        data_d[Gb + gi + k] = h.G;
      }
    }
    cost = df_add(cost, ce);
  }
  return cost;
}

// out (reduced vector base) = Jᵀ · rows (row field base), over participating DOFs of world w
fn world_JTx(w: u32, rowsb: u32, outb: u32) {
  let d0 = u32(get_world_dof_start(w));
  let nvp = u32(get_world_i(w, WI_NVP));
  for (var a = 0u; a < nvp; a++) {
    data_d[outb + d0 + a] = df(0.0, 0.0);
  }
  let rs = row_start(w);
  let cnt = u32(get_contact_count(w));
  for (var i = 0u; i < cnt; i++) {
    let s = w * L.capacity + i;
    if (!contact_live(s)) {
      continue;
    }
    for (var b = 0u; b < 2u; b++) {
      let t = get_con_tree(s, b);
      if (t < 0) {
        continue;
      }
      let nv = tree_nv(u32(t));
      let red = u32(get_tree_red(u32(t)));
      let jb = con_J_base(s, b);
      for (var k = 0u; k < 3u; k++) {
        let g = data_d[rowsb + rs + 3u * i + k];
        for (var m = 0u; m < nv; m++) {
          let o = outb + d0 + red + m;
          data_d[o] = df_add(data_d[o], df_mul(data_d[jb + k * nv + m], g));
        }
      }
    }
  }
  for (var d = d0; d < u32(get_world_dof_start(w + 1u)); d++) {
    let lr = get_lim_rows(d);
    let pd = get_pd_active(d);
    let fr = get_fr_active(d);
    if (lr == 0 && pd == 0 && fr == 0) {
      continue;
    }
    let r = rs + 3u * L.capacity + DOF_ROWS * (d - d0);
    let o = outb + d0 + red_of_dof(d);
    if ((lr & 1) != 0) {
      data_d[o] = df_add(data_d[o], data_d[rowsb + r]);
    }
    if ((lr & 2) != 0) {
      data_d[o] = df_sub(data_d[o], data_d[rowsb + r + 1u]);
    }
    if (pd != 0) {
      data_d[o] = df_add(data_d[o], data_d[rowsb + r + 2u]);
    }
    if (fr != 0) {
      data_d[o] = df_add(data_d[o], data_d[rowsb + r + 3u]);
    }
  }
  for (var e = u32(get_world_eq_start(w)); e < u32(get_world_eq_start(w + 1u)); e++) {
    if (!eq_live(e)) {
      continue;
    }
    let nr = eq_rows(e);
    let r = eq_row(e);
    for (var b = 0u; b < 2u; b++) {
      let t = get_eq_tree(e, b);
      if (t < 0) {
        continue;
      }
      let nv = tree_nv(u32(t));
      let red = u32(get_tree_red(u32(t)));
      let jb = eq_J_base(e, b);
      for (var k = 0u; k < nr; k++) {
        let g = data_d[rowsb + r + k];
        for (var m = 0u; m < nv; m++) {
          let o = outb + d0 + red + m;
          data_d[o] = df_add(data_d[o], df_mul(data_d[jb + k * nv + m], g));
        }
      }
    }
  }
}

// fp32 rounding of a stored value when contact_solve_precision is fp32
fn cs_round(x: df) -> df {
  if (L.solve_fp32 != 0u) {
    return df(df_to_f32(x), 0.0);
  }
  return x;
}
