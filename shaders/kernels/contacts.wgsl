// Contact constraints (SPEC §3.3, §3.5), one invocation per contact slot: the twin of
// engine/pipeline/contact_jacobian.ts (frame, Jacobian blocks, weight) and of makeContactParams
// (engine/sap/constraints/contact.ts). Kinematics are the contact stage's (cbody_*, cdof_S).
// Jacobians and parameters in df64; the weight w in precision P (sap_contact_weight_precision).
// Needs df64, spatial, layout, a precision prelude.

const SLIP_OPEN: i32 = 0;
const MIN_WEIGHT = df(9.999999960041972e-13, 3.995802577688237e-21);
const INV_4PI2_C = df(0.02533029578626156, 1.243228853198275e-10);

fn clique_of_body(b: i32) -> i32 {
  if (b < 0) {
    return -1;
  }
  let t = get_joint_tree(u32(b));
  if (get_tree_dof_start(u32(t) + 1u) > get_tree_dof_start(u32(t))) {
    return t;
  }
  return -1;
}

fn cbody_xform(b: u32) -> Xform {
  return Xform(
    V3(get_cbody_X(b, 0u), get_cbody_X(b, 1u), get_cbody_X(b, 2u)),
    Quat(get_cbody_X(b, 3u), get_cbody_X(b, 4u), get_cbody_X(b, 5u), get_cbody_X(b, 6u)),
  );
}

// rows (t1, t2, n) of R_WCᵀ with z = n (contactFrame)
fn contact_frame(n: V3) -> array<df, 9> {
  let nv = array<df, 3>(n.x, n.y, n.z);
  let ax = df_abs(n.x);
  let ay = df_abs(n.y);
  let az = df_abs(n.z);
  var i = 2u;
  if (df_le(ax, ay) && df_le(ax, az)) {
    i = 0u;
  } else if (df_le(ay, az)) {
    i = 1u;
  }
  let j = (i + 1u) % 3u;
  let k = (j + 1u) % 3u;
  let s = df_sqrt(df_sub(df(1.0, 0.0), df_mul(nv[i], nv[i])));
  let r = df_div(df(1.0, 0.0), s);
  var out: array<df, 9>;
  out[i] = df(0.0, 0.0);
  out[j] = -df_mul(r, nv[k]);
  out[k] = df_mul(r, nv[j]);
  out[3u + i] = s;
  out[3u + j] = -df_mul(df_mul(r, nv[i]), nv[j]);
  out[3u + k] = -df_mul(df_mul(r, nv[i]), nv[k]);
  out[6] = n.x;
  out[7] = n.y;
  out[8] = n.z;
  return out;
}

// adds sign · R_WCᵀ J_v(x) of body b into the block at jb (3 × nv, columns from dof0)
fn accumulate_point_jacobian(b: u32, x: V3, frame: array<df, 9>, dof0: u32, nv: u32, sgn: f32, jb: u32) {
  var a = i32(b);
  loop {
    if (a < 0) {
      break;
    }
    let au = u32(a);
    for (var d = u32(get_joint_qd_start(au)); d < u32(get_joint_qd_start(au + 1u)); d++) {
      let sw = V3(get_cdof_S(d, 0u), get_cdof_S(d, 1u), get_cdof_S(d, 2u));
      let sv = V3(get_cdof_S(d, 3u), get_cdof_S(d, 4u), get_cdof_S(d, 5u));
      let v = v3_add(sv, v3_cross(sw, x));
      let col = d - dof0;
      for (var row = 0u; row < 3u; row++) {
        let fr = V3(frame[row * 3u], frame[row * 3u + 1u], frame[row * 3u + 2u]);
        let idx = jb + row * nv + col;
        data_d[idx] = df_add(data_d[idx], df_mul_f(v3_dot(fr, v), sgn));
      }
    }
    a = get_joint_parent(au);
  }
}

// Σ over the frame's directions c of 1/m + uᵀI⁻¹u, u = R_bᵀ((x − o_b) × c), in precision P
fn body_mobility(b: u32, x: V3, frame: array<df, 9>) -> P {
  let mass = get_body_mass(b);
  var invm = p_zero();
  if (mass.x > 0.0) {
    invm = p_div(p_from(df(1.0, 0.0)), p_from(mass));
  }
  var R: array<P, 9>;
  var Ii: array<P, 9>;
  for (var k = 0u; k < 9u; k++) {
    R[k] = p_from(get_cbody_R(b, k));
    Ii[k] = p_from(get_body_inv_inertia(b, k));
  }
  let dx = p_from(df_sub(x.x, get_cbody_com_w(b, 0u)));
  let dy = p_from(df_sub(x.y, get_cbody_com_w(b, 1u)));
  let dz = p_from(df_sub(x.z, get_cbody_com_w(b, 2u)));
  var total = p_zero();
  for (var c = 0u; c < 3u; c++) {
    let cx = p_from(frame[c * 3u]);
    let cy = p_from(frame[c * 3u + 1u]);
    let cz = p_from(frame[c * 3u + 2u]);
    let ex = p_sub(p_mul(dy, cz), p_mul(dz, cy));
    let ey = p_sub(p_mul(dz, cx), p_mul(dx, cz));
    let ez = p_sub(p_mul(dx, cy), p_mul(dy, cx));
    let ux = p_add(p_add(p_mul(R[0], ex), p_mul(R[3], ey)), p_mul(R[6], ez));
    let uy = p_add(p_add(p_mul(R[1], ex), p_mul(R[4], ey)), p_mul(R[7], ez));
    let uz = p_add(p_add(p_mul(R[2], ex), p_mul(R[5], ey)), p_mul(R[8], ez));
    let qx = p_add(p_add(p_mul(Ii[0], ux), p_mul(Ii[1], uy)), p_mul(Ii[2], uz));
    let qy = p_add(p_add(p_mul(Ii[3], ux), p_mul(Ii[4], uy)), p_mul(Ii[5], uz));
    let qz = p_add(p_add(p_mul(Ii[6], ux), p_mul(Ii[7], uy)), p_mul(Ii[8], uz));
    total = p_add(total, p_add(invm, p_add(p_add(p_mul(ux, qx), p_mul(uy, qy)), p_mul(uz, qz))));
  }
  return total;
}

@compute @workgroup_size(64)
fn contact_constraints(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let s = gid.x;
  if (s >= L.slot_count) {
    return;
  }
  let w = s / L.capacity;
  let i = s % L.capacity;
  set_con_active(s, 0);
  set_con_tree(s, 0u, -1);
  set_con_tree(s, 1u, -1);
  if (i >= u32(get_contact_count(w))) {
    return;
  }
  let b0 = get_contact_body0(s);
  let b1 = get_contact_body1(s);
  let t0 = clique_of_body(b0);
  let t1 = clique_of_body(b1);
  if (t0 < 0 && t1 < 0) {
    // both static: no constraint, reported open with zero force
    set_con_active(s, 3);
    set_con_slip(s, SLIP_OPEN);
    for (var k = 0u; k < 3u; k++) {
      set_con_force(s, k, df(0.0, 0.0));
    }
    return;
  }
  // world witness points
  var x0 = V3(get_contact_point0(s, 0u), get_contact_point0(s, 1u), get_contact_point0(s, 2u));
  var x1 = V3(get_contact_point1(s, 0u), get_contact_point1(s, 1u), get_contact_point1(s, 2u));
  if (b0 >= 0) {
    x0 = xform_point(cbody_xform(u32(b0)), x0);
  }
  if (b1 >= 0) {
    x1 = xform_point(cbody_xform(u32(b1)), x1);
  }
  let frame = contact_frame(V3(get_contact_normal(s, 0u), get_contact_normal(s, 1u), get_contact_normal(s, 2u)));
  // velocity points
  var pa = x0;
  var pb = x1;
  if (L.point_mode == 1u) {
    let a0 = get_contact_alpha0(s);
    let a1 = df_sub(df(1.0, 0.0), a0);
    pa = v3_add(v3_scale(x0, a0), v3_scale(x1, a1));
    pb = pa;
  }
  // Jacobian blocks: one per distinct participating tree, in the order (t0, t1)
  var trees = array<i32, 2>(-1, -1);
  var nb = 0u;
  if (t0 >= 0) {
    trees[0] = t0;
    nb = 1u;
  }
  if (t1 >= 0 && t1 != t0) {
    trees[nb] = t1;
    nb++;
  }
  for (var b = 0u; b < nb; b++) {
    let t = u32(trees[b]);
    let dof0 = u32(get_tree_dof_start(t));
    let nv = u32(get_tree_dof_start(t + 1u)) - dof0;
    let jb = L.o_con_J + s * 6u * L.max_tree_nv + b * 3u * L.max_tree_nv;
    for (var k = 0u; k < 3u * nv; k++) {
      data_d[jb + k] = df(0.0, 0.0);
    }
    if (t1 == i32(t)) {
      accumulate_point_jacobian(u32(b1), pb, frame, dof0, nv, 1.0, jb);
    }
    if (t0 == i32(t)) {
      accumulate_point_jacobian(u32(b0), pa, frame, dof0, nv, -1.0, jb);
    }
    set_con_tree(s, b, i32(t));
  }
  // weight
  var wp = p_zero();
  if (L.weight_mode == 0u) {
    if (t0 >= 0) {
      wp = p_add(wp, body_mobility(u32(b0), x0, frame));
    }
    if (t1 >= 0) {
      wp = p_add(wp, body_mobility(u32(b1), x1, frame));
    }
    wp = p_div(wp, p_from(df(3.0, 0.0)));
  } else {
    // W = Σ_blocks J diag(A)⁻¹ Jᵀ (3×3), w = ‖W‖_F / 3
    var fro = p_zero();
    for (var r = 0u; r < 3u; r++) {
      for (var c = 0u; c < 3u; c++) {
        var wrc = p_zero();
        for (var b = 0u; b < nb; b++) {
          let t = u32(trees[b]);
          let dof0 = u32(get_tree_dof_start(t));
          let nv = u32(get_tree_dof_start(t + 1u)) - dof0;
          let jb = L.o_con_J + s * 6u * L.max_tree_nv + b * 3u * L.max_tree_nv;
          for (var m = 0u; m < nv; m++) {
            let jr = p_from(data_d[jb + r * nv + m]);
            let jc = p_from(data_d[jb + c * nv + m]);
            // (J_rm·J_cm)·(1/A_mm), as the CPU's diagDelassusWeight
            let ia = p_div(p_from(df(1.0, 0.0)), p_from(get_A_diag(dof0 + m)));
            wrc = p_add(wrc, p_mul(p_mul(jr, jc), ia));
          }
        }
        fro = p_add(fro, p_mul(wrc, wrc));
      }
    }
    wp = p_div(p_sqrt(fro), p_from(df(3.0, 0.0)));
  }
  let wgt = df_max(p_to(wp), MIN_WEIGHT);
  set_con_w(s, wgt);
  // parameters (makeContactParams)
  let dt = P_dt();
  let tau = get_contact_tau(s);
  let mu = get_contact_mu(s);
  let beta = P_contact_beta();
  let Rt = df_mul(P_contact_sigma(), wgt);
  let dtt = df_add(dt, tau);
  let Rn = df_max(df_mul(df_mul(df_mul(beta, beta), INV_4PI2_C), wgt), df_div(get_contact_inv_ke(s), df_mul(dt, dtt)));
  let ratio = df_div(Rt, Rn);
  set_con_param(s, 0u, mu);
  set_con_param(s, 1u, Rt);
  set_con_param(s, 2u, Rn);
  set_con_param(s, 3u, df_div(-get_contact_phi0(s), dtt));
  set_con_param(s, 4u, df_mul(mu, ratio));
  set_con_param(s, 5u, df_div(df(1.0, 0.0), df_add(df(1.0, 0.0), df_mul(df_mul(mu, mu), ratio))));
  for (var k = 0u; k < 9u; k++) {
    set_con_frame(s, k, frame[k]);
  }
  set_con_point(s, 0u, pb.x);
  set_con_point(s, 1u, pb.y);
  set_con_point(s, 2u, pb.z);
  // a regularization that is not positive and finite makes the world's input invalid
  if (!(Rt.x > 0.0) || !(Rn.x > 0.0) || df_nonfinite(Rt) || df_nonfinite(Rn)) {
    set_con_active(s, 2);
  } else {
    set_con_active(s, 1);
  }
}
