// Equality (holonomic) constraints (SPEC §3.3; drake_sap_notes §2.4, §2.6, §2.7), one invocation
// per equality: the twin of engine/pipeline/equality_constraints.ts (g₀ and the Jacobian blocks),
// of the diagonal-Delassus weight of engine/sap/solver.ts and of makeHolonomicParams
// (engine/sap/constraints/holonomic.ts):
//   coupler  g = q₀ − ρ·q₁ − Δq, J = (+1 at dof₀, −ρ at dof₁)
//   ball     g = p_WQ − p_WP, J = J_v(B at Q) − J_v(A at P)
//   weld     g = (a, p_Q − p_T), a the angle-axis of R_TQ in W; J = relative twist at the midpoint
// and of engine/pipeline/tendon_constraints.ts with makeTendonParams (engine/sap/constraints/tendon.ts)
// for a fixed-tendon slot (EQ_TENDON, tendon_limits below), and of engine/pipeline/cone_limits.ts
// for a ball joint's cone limit (EQ_CONE, cone_limit below).
// Kinematics at q_n in df64 (body_X, dof_S: the reference uses its fp64 kinematics); g, J and the
// parameters in df64; the weight w in precision P (sap_contact_weight_precision).
// Storage: blocks at eq_J_base (sap_constraints.wgsl), rows and G at eq_row / eq_gi.
// Needs df64, spatial, layout, a precision prelude, kernels/sap_constraints.wgsl.

const EQ_MIN_WEIGHT = df(9.999999960041972e-13, 3.995802577688237e-21);
const EQ_BETA2 = df(0.009999999776482582, 2.2351742678949904e-10);
const EQ_INV_4PI2 = df(0.02533029578626156, 1.243228853198275e-10);

fn eq_tree_of_body(b: i32) -> i32 {
  if (b < 0) {
    return -1;
  }
  let t = get_joint_tree(u32(b));
  if (tree_nv(u32(t)) > 0u) {
    return t;
  }
  return -1;
}

// world pose of equality e's anchor k (body b; the world for b < 0)
fn eq_anchor_frame(b: i32, e: u32, k: u32) -> Xform {
  let a = Xform(V3(get_eq_anchor(e, 3u * k), get_eq_anchor(e, 3u * k + 1u), get_eq_anchor(e, 3u * k + 2u)), quat_identity());
  if (b < 0) {
    return a;
  }
  let bu = u32(b);
  let X = Xform(
    V3(get_body_X(bu, 0u), get_body_X(bu, 1u), get_body_X(bu, 2u)),
    Quat(get_body_X(bu, 3u), get_body_X(bu, 4u), get_body_X(bu, 5u), get_body_X(bu, 6u)),
  );
  return xform_mul(X, a);
}

// atan2 in df64: the f32 angle refined by one Newton step on tan (error ~1e-14 absolute)
fn eq_atan2(y: df, x: df) -> df {
  let t0 = atan2(y.x, x.x);
  let sc = df_sincos(df(t0, 0.0));
  let s0 = df(sc.x, sc.y);
  let c0 = df(sc.z, sc.w);
  let num = df_sub(df_mul(y, c0), df_mul(x, s0));
  let den = df_add(df_mul(x, c0), df_mul(y, s0));
  return df_add(df(t0, 0.0), df_div(num, den));
}

// adds sgn · (angular rows of the twin of accumulateAngularJacobian when ang, else J_v(x)) of
// body b into rows row0 .. row0+2 of the block at jb (nrows × nv, columns from dof0)
fn eq_accumulate(b: u32, x: V3, ang: bool, dof0: u32, nv: u32, sgn: f32, jb: u32, row0: u32) {
  var a = i32(b);
  loop {
    if (a < 0) {
      break;
    }
    let au = u32(a);
    for (var d = u32(get_joint_qd_start(au)); d < u32(get_joint_qd_start(au + 1u)); d++) {
      let sw = V3(get_dof_S(d, 0u), get_dof_S(d, 1u), get_dof_S(d, 2u));
      var v = sw;
      if (!ang) {
        v = v3_add(V3(get_dof_S(d, 3u), get_dof_S(d, 4u), get_dof_S(d, 5u)), v3_cross(sw, x));
      }
      let vv = array<df, 3>(v.x, v.y, v.z);
      let col = d - dof0;
      for (var row = 0u; row < 3u; row++) {
        let idx = jb + (row0 + row) * nv + col;
        data_d[idx] = df_add(data_d[idx], df_mul_f(vv[row], sgn));
      }
    }
    a = get_joint_parent(au);
  }
}

// w = max(‖W‖_F / nr, 1e-12), W = Σ_blocks J diag(A)⁻¹ Jᵀ over the rows `rows[0 .. nr)` of slot e's
// blocks, in precision P (the twin of SapSolver.delassusWeight)
fn eq_weight(e: u32, trees: array<i32, 2>, nb: u32, rows: array<u32, 6>, nr: u32) -> df {
  var fro = p_zero();
  for (var r = 0u; r < nr; r++) {
    for (var c = 0u; c < nr; c++) {
      var wrc = p_zero();
      for (var b = 0u; b < nb; b++) {
        let dof0 = u32(get_tree_dof_start(u32(trees[b])));
        let nv = tree_nv(u32(trees[b]));
        let jb = eq_J_base(e, b);
        for (var m = 0u; m < nv; m++) {
          let jr = p_from(data_d[jb + rows[r] * nv + m]);
          let jc = p_from(data_d[jb + rows[c] * nv + m]);
          wrc = p_add(wrc, p_div(p_mul(jr, jc), p_from(get_A_diag(dof0 + m))));
        }
      }
      fro = p_add(fro, p_mul(wrc, wrc));
    }
  }
  return df_max(p_to(p_div(p_sqrt(fro), p_from(df(f32(nr), 0.0)))), EQ_MIN_WEIGHT);
}

struct EqRegularization {
  R: df,
  tau: df,
}

// R = max(R_c, R_nr) with R_c = 1/(δt·k·(δt+τ)), R_nr = β²/(4π²)·w; near-rigid (R_c < R_nr): τ = δt
fn eq_regularization(e: u32, wgt: df) -> EqRegularization {
  let dt = P_dt();
  let tau_d = get_eq_tau(e);
  let Rnr = df_mul(df_mul(EQ_BETA2, EQ_INV_4PI2), wgt);
  let Rc = df_div(get_eq_inv_k(e), df_mul(dt, df_add(dt, tau_d)));
  if (df_lt(Rc, Rnr)) {
    return EqRegularization(Rnr, dt);
  }
  return EqRegularization(Rc, tau_d);
}

// a fixed tendon's limits (packTendonConstraints): l = Σ aₖ·q(jointₖ) + offset; a side enters
// only inside the window l₀ ± 2·dt·max(|l̇₀|, |l̇*|); rows +aᵀv (lower), −aᵀv (upper), a row outside
// the window kept with J = 0 and (R, v̂) = (1, −1) (γ = 0); w = ‖W‖_F / rows over the kept rows;
// R = max(R_c, R_nr), near-rigid rows with τ = δt (the tendon's entries lie in at most two trees:
// backends/index.ts)
fn tendon_limits(e: u32) {
  let z = df(0.0, 0.0);
  let k0 = u32(get_eq_entries(e, 0u));
  let k1 = u32(get_eq_entries(e, 1u));
  var trees = array<i32, 2>(-1, -1);
  var nb = 0u;
  var l0 = z;
  var rate0 = z;
  var rate1 = z;
  for (var k = k0; k < k1; k++) {
    let j = u32(get_tendon_joint(k));
    let a = get_tendon_coef(k);
    let d = u32(get_joint_qd_start(j));
    l0 = df_add(l0, df_mul(a, get_joint_q(u32(get_joint_q_start(j)))));
    rate0 = df_add(rate0, df_mul(a, get_v_n(d)));
    rate1 = df_add(rate1, df_mul(a, get_v_star(d)));
    let t = get_joint_tree(j);
    if (tree_nv(u32(t)) > 0u && t != trees[0] && t != trees[1] && nb < 2u) {
      trees[nb] = t;
      nb++;
    }
  }
  l0 = df_add(l0, get_eq_limit(e, 2u));
  let dt = P_dt();
  let window = df_mul(df_mul_f(dt, 2.0), df_max(df_abs(rate0), df_abs(rate1)));
  let lower = get_eq_limit(e, 0u);
  let upper = get_eq_limit(e, 1u);
  let lo = df_gt(lower, df_sub(l0, window));
  let hi = df_lt(upper, df_add(l0, window));
  if (nb == 0u || !(lo || hi)) {
    return;
  }
  // J rows: +a (lower), −a (upper); zero where the side is not kept
  for (var b = 0u; b < nb; b++) {
    let nv = tree_nv(u32(trees[b]));
    let jb = eq_J_base(e, b);
    for (var k = 0u; k < 2u * nv; k++) {
      data_d[jb + k] = z;
    }
    set_eq_tree(e, b, trees[b]);
  }
  for (var k = k0; k < k1; k++) {
    let j = u32(get_tendon_joint(k));
    let t = get_joint_tree(j);
    let a = get_tendon_coef(k);
    for (var b = 0u; b < nb; b++) {
      if (trees[b] != t) {
        continue;
      }
      let i = eq_J_base(e, b) + u32(get_joint_qd_start(j)) - u32(get_tree_dof_start(u32(t)));
      if (lo) {
        data_d[i] = df_add(data_d[i], a);
      }
      if (hi) {
        let nv = tree_nv(u32(t));
        data_d[i + nv] = df_sub(data_d[i + nv], a);
      }
    }
  }
  // diagonal-Delassus weight over the kept rows
  var rows = array<u32, 6>(0u, 1u, 0u, 0u, 0u, 0u);
  var nr = 2u;
  if (!lo) {
    rows[0] = 1u;
    nr = 1u;
  } else if (!hi) {
    nr = 1u;
  }
  let wgt = eq_weight(e, trees, nb, rows, nr);
  set_eq_w(e, wgt);
  let reg = eq_regularization(e, wgt);
  let R = reg.R;
  let tau = reg.tau;
  let denom = df_add(dt, tau);
  let vlo = df_div(-df_sub(l0, lower), denom);
  let vhi = df_div(-df_sub(upper, l0), denom);
  for (var k = 0u; k < 12u; k++) {
    set_eq_param(e, k, z);
  }
  set_eq_param(e, 0u, df(1.0, 0.0));
  set_eq_param(e, 1u, df(-1.0, 0.0));
  set_eq_param(e, 2u, df(1.0, 0.0));
  set_eq_param(e, 3u, df(-1.0, 0.0));
  var ok = R.x > 0.0 && !df_nonfinite(R);
  if (lo) {
    set_eq_param(e, 0u, R);
    set_eq_param(e, 1u, vlo);
    ok = ok && !df_nonfinite(vlo);
  }
  if (hi) {
    set_eq_param(e, 2u, R);
    set_eq_param(e, 3u, vhi);
    ok = ok && !df_nonfinite(vhi);
  }
  if (ok) {
    set_eq_active(e, 1);
  } else {
    set_eq_active(e, 2);
  }
}

// the swing cone's basis of a unit axis e (swingBasis): b₁ the basis axis after e's largest
// component (x→y, y→z, z→x) made ⊥ e and unit, b₂ = e × b₁
fn cone_swing_basis(e: V3) -> array<V3, 2> {
  let z = df(0.0, 0.0);
  let one = df(1.0, 0.0);
  let ax = df_abs(e.x);
  let ay = df_abs(e.y);
  let az = df_abs(e.z);
  var b1 = V3(one, z, z);
  var ek = e.x;
  if (!df_lt(ax, ay) && !df_lt(ax, az)) {
    b1 = V3(z, one, z);
    ek = e.y;
  } else if (!df_lt(ay, az)) {
    b1 = V3(z, z, one);
    ek = e.z;
  }
  b1 = v3_sub(b1, v3_scale(e, ek));
  let bl = df_sqrt(v3_dot(b1, b1));
  b1 = V3(df_div(b1.x, bl), df_div(b1.y, bl), df_div(b1.z, bl));
  return array<V3, 2>(b1, v3_cross(e, b1));
}

// a ball joint's cone limit (coneRow, packConeLimits): x ≤ limit with x the rotation angle
// θ = 2·atan2(|u|, |w|) (ConeMode ROTATION, entries[0] = 1; a = sign(w)·u/|u|) or the swing
// φ = atan2(|e × Re|, e·Re) of the joint axis e (SWING, 2; a = (e × Re)/|e × Re|, the limit the
// elliptical cone's radius in that direction, 1/√((a·b₂/c₀)² + (a·b₁/c₁)²)); ẋ = aᵀω over the
// joint's three DOFs. Inside the window x₀ + 2·dt·max(|aᵀv₀|, |aᵀv*|) the slot's upper row is
// −aᵀv (the lower row kept with J = 0 and γ = 0, as a tendon's open side); no direction
// (|sin| < 1e-12) or outside the window: no rows
fn cone_limit(e: u32) {
  let z = df(0.0, 0.0);
  let j = u32(get_eq_joint(e, 0u));
  let t = get_joint_tree(j);
  if (tree_nv(u32(t)) == 0u) {
    return;
  }
  let o = u32(get_joint_q_start(j));
  var qx = get_joint_q(o);
  var qy = get_joint_q(o + 1u);
  var qz = get_joint_q(o + 2u);
  var qw = get_joint_q(o + 3u);
  var n = df_sqrt(df_add(df_add(df_mul(qx, qx), df_mul(qy, qy)), df_add(df_mul(qz, qz), df_mul(qw, qw))));
  if (n.x == 0.0) {
    n = df(1.0, 0.0);
  }
  qx = df_div(qx, n);
  qy = df_div(qy, n);
  qz = df_div(qz, n);
  qw = df_div(qw, n);
  if (qw.x < 0.0) {
    qx = -qx;
    qy = -qy;
    qz = -qz;
    qw = -qw;
  }
  let min_sin = df(9.999999960041972e-13, 3.995802577688237e-21);
  var x0 = z;
  var limit = z;
  var a = v3_zero();
  if (get_eq_entries(e, 0u) == 1) {
    let s = df_sqrt(df_add(df_add(df_mul(qx, qx), df_mul(qy, qy)), df_mul(qz, qz)));
    if (df_lt(s, min_sin)) {
      return;
    }
    x0 = df_mul_f(eq_atan2(s, qw), 2.0);
    limit = get_eq_limit(e, 0u);
    a = V3(df_div(qx, s), df_div(qy, s), df_div(qz, s));
  } else {
    let ax = V3(get_joint_axis(j, 0u), get_joint_axis(j, 1u), get_joint_axis(j, 2u));
    let re = quat_rotate(Quat(qx, qy, qz, qw), ax);
    let c = v3_cross(ax, re);
    let s = df_sqrt(v3_dot(c, c));
    if (df_lt(s, min_sin)) {
      return;
    }
    a = V3(df_div(c.x, s), df_div(c.y, s), df_div(c.z, s));
    x0 = eq_atan2(s, v3_dot(ax, re));
    let B = cone_swing_basis(ax);
    let p = df_div(v3_dot(a, B[1]), get_eq_limit(e, 0u));
    let r = df_div(v3_dot(a, B[0]), get_eq_limit(e, 1u));
    let inv = df_sqrt(df_add(df_mul(p, p), df_mul(r, r)));
    if (!(inv.x > 0.0)) {
      return;
    }
    limit = df_div(df(1.0, 0.0), inv);
  }
  let d = u32(get_joint_qd_start(j));
  let av = array<df, 3>(a.x, a.y, a.z);
  var rate0 = z;
  var rate1 = z;
  for (var k = 0u; k < 3u; k++) {
    rate0 = df_add(rate0, df_mul(av[k], get_v_n(d + k)));
    rate1 = df_add(rate1, df_mul(av[k], get_v_star(d + k)));
  }
  let dt = P_dt();
  let window = df_mul(df_mul_f(dt, 2.0), df_max(df_abs(rate0), df_abs(rate1)));
  if (!df_lt(limit, df_add(x0, window))) {
    return;
  }
  // one block (the joint's tree): row 0 J = 0, row 1 J = −a on the joint's DOFs
  let nv = tree_nv(u32(t));
  let jb = eq_J_base(e, 0u);
  for (var k = 0u; k < 2u * nv; k++) {
    data_d[jb + k] = z;
  }
  set_eq_tree(e, 0u, t);
  let col = d - u32(get_tree_dof_start(u32(t)));
  for (var k = 0u; k < 3u; k++) {
    data_d[jb + nv + col + k] = -av[k];
  }
  let wgt = eq_weight(e, array<i32, 2>(t, -1), 1u, array<u32, 6>(1u, 0u, 0u, 0u, 0u, 0u), 1u);
  set_eq_w(e, wgt);
  let reg = eq_regularization(e, wgt);
  let R = reg.R;
  let vhi = df_div(-df_sub(limit, x0), df_add(dt, reg.tau));
  for (var k = 0u; k < 12u; k++) {
    set_eq_param(e, k, z);
  }
  set_eq_param(e, 0u, df(1.0, 0.0));
  set_eq_param(e, 1u, df(-1.0, 0.0));
  set_eq_param(e, 2u, R);
  set_eq_param(e, 3u, vhi);
  if (R.x > 0.0 && !df_nonfinite(R) && !df_nonfinite(vhi)) {
    set_eq_active(e, 1);
  } else {
    set_eq_active(e, 2);
  }
}

@compute @workgroup_size(64)
fn equality_constraints(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let e = gid.x;
  if (e >= L.eq_count) {
    return;
  }
  set_eq_active(e, 0);
  set_eq_tree(e, 0u, -1);
  set_eq_tree(e, 1u, -1);
  let ty = get_eq_type(e);
  if (ty == EQ_TENDON) {
    tendon_limits(e);
    return;
  }
  if (ty == EQ_CONE) {
    cone_limit(e);
    return;
  }
  let nr = eq_rows(e);
  let z = df(0.0, 0.0);
  var g = array<df, 6>(z, z, z, z, z, z);
  var trees = array<i32, 2>(-1, -1);
  var nb = 0u;
  // the participating trees, in the reference's block order
  var t0: i32;
  var t1: i32;
  if (ty == EQ_COUPLER) {
    t0 = get_joint_tree(u32(get_eq_joint(e, 0u)));
    t1 = get_joint_tree(u32(get_eq_joint(e, 1u)));
    if (tree_nv(u32(t0)) == 0u) {
      t0 = -1;
    }
    if (tree_nv(u32(t1)) == 0u) {
      t1 = -1;
    }
  } else {
    t0 = eq_tree_of_body(get_eq_body(e, 0u));
    t1 = eq_tree_of_body(get_eq_body(e, 1u));
  }
  if (t0 >= 0) {
    trees[0] = t0;
    nb = 1u;
  }
  if (t1 >= 0 && t1 != t0) {
    trees[nb] = t1;
    nb++;
  }
  if (nb == 0u) {
    return;
  }
  for (var b = 0u; b < nb; b++) {
    let nv = tree_nv(u32(trees[b]));
    let jb = eq_J_base(e, b);
    for (var k = 0u; k < nr * nv; k++) {
      data_d[jb + k] = z;
    }
    set_eq_tree(e, b, trees[b]);
  }
  if (ty == EQ_COUPLER) {
    let j0 = u32(get_eq_joint(e, 0u));
    let j1 = u32(get_eq_joint(e, 1u));
    let ratio = get_eq_coupler(e, 0u);
    let q0 = get_joint_q(u32(get_joint_q_start(j0)));
    let q1 = get_joint_q(u32(get_joint_q_start(j1)));
    g[0] = df_sub(df_sub(q0, df_mul(ratio, q1)), get_eq_coupler(e, 1u));
    for (var b = 0u; b < nb; b++) {
      let dof0 = u32(get_tree_dof_start(u32(trees[b])));
      let jb = eq_J_base(e, b);
      if (trees[b] == t0) {
        let i = jb + u32(get_joint_qd_start(j0)) - dof0;
        data_d[i] = df_add(data_d[i], df(1.0, 0.0));
      }
      if (trees[b] == t1) {
        let i = jb + u32(get_joint_qd_start(j1)) - dof0;
        data_d[i] = df_sub(data_d[i], ratio);
      }
    }
  } else {
    let b0 = get_eq_body(e, 0u);
    let b1 = get_eq_body(e, 1u);
    let fP = eq_anchor_frame(b0, e, 0u);
    let fQ = eq_anchor_frame(b1, e, 1u);
    var pP = fP.p;
    var pQ = fQ.p;
    let weld = ty == EQ_WELD;
    if (!weld) {
      let d = v3_sub(fQ.p, fP.p);
      g[0] = d.x;
      g[1] = d.y;
      g[2] = d.z;
    } else {
      // target frame T = P ∘ relpose; orientation error R_TQ as an angle-axis, in world
      let rel = Xform(
        V3(get_eq_relpose(e, 0u), get_eq_relpose(e, 1u), get_eq_relpose(e, 2u)),
        Quat(get_eq_relpose(e, 3u), get_eq_relpose(e, 4u), get_eq_relpose(e, 5u), get_eq_relpose(e, 6u)),
      );
      let fT = xform_mul(fP, rel);
      var dq = quat_mul(quat_conj(fT.q), fQ.q);
      if (dq.w.x < 0.0) {
        dq = Quat(-dq.x, -dq.y, -dq.z, -dq.w);
      }
      let s = df_sqrt(df_add(df_add(df_mul(dq.x, dq.x), df_mul(dq.y, dq.y)), df_mul(dq.z, dq.z)));
      let angle = df_mul_f(eq_atan2(s, dq.w), 2.0);
      var scale = df(2.0, 0.0);
      if (df_gt(s, df(1e-12, 0.0))) {
        scale = df_div(angle, s);
      }
      let a = quat_rotate(fT.q, v3_scale(V3(dq.x, dq.y, dq.z), scale));
      let d = v3_sub(fQ.p, fT.p);
      g = array<df, 6>(a.x, a.y, a.z, d.x, d.y, d.z);
      pP = v3_scale(v3_add(fQ.p, fT.p), df(0.5, 0.0));
      pQ = pP;
    }
    var r0 = 0u;
    if (weld) {
      r0 = 3u;
    }
    for (var b = 0u; b < nb; b++) {
      let dof0 = u32(get_tree_dof_start(u32(trees[b])));
      let nv = tree_nv(u32(trees[b]));
      let jb = eq_J_base(e, b);
      if (trees[b] == t1) {
        if (weld) {
          eq_accumulate(u32(b1), pQ, true, dof0, nv, 1.0, jb, 0u);
        }
        eq_accumulate(u32(b1), pQ, false, dof0, nv, 1.0, jb, r0);
      }
      if (trees[b] == t0) {
        if (weld) {
          eq_accumulate(u32(b0), pP, true, dof0, nv, -1.0, jb, 0u);
        }
        eq_accumulate(u32(b0), pP, false, dof0, nv, -1.0, jb, r0);
      }
    }
  }
  // diagonal-Delassus weight: W = Σ_blocks J diag(A)⁻¹ Jᵀ, w = max(‖W‖_F / nrows, 1e-12)
  let wgt = eq_weight(e, trees, nb, array<u32, 6>(0u, 1u, 2u, 3u, 4u, 5u), nr);
  set_eq_w(e, wgt);
  // makeHolonomicParams: R = max(R_c, R_nr); near-rigid (R_c < R_nr): τ = δt
  let dt = P_dt();
  let reg = eq_regularization(e, wgt);
  let R = reg.R;
  let tau = reg.tau;
  var ok = R.x > 0.0 && !df_nonfinite(R);
  for (var k = 0u; k < 6u; k++) {
    if (k < nr) {
      let vhat = df_div(-g[k], df_add(dt, tau));
      set_eq_param(e, 2u * k, R);
      set_eq_param(e, 2u * k + 1u, vhat);
      if (df_nonfinite(vhat)) {
        ok = false;
      }
    } else {
      set_eq_param(e, 2u * k, z);
      set_eq_param(e, 2u * k + 1u, z);
    }
  }
  if (ok) {
    set_eq_active(e, 1);
  } else {
    set_eq_active(e, 2);
  }
}
