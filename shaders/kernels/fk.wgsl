// Forward kinematics, world-frame Plücker motion subspaces, joint velocities at the solver boundary
// and the public body state: the twins of engine/kinematics/{fk,body_state}.ts. One invocation per
// tree (trees are independent; joints of a tree are parent-first). All arithmetic in df64.
// Needs common/df64.wgsl, common/spatial.wgsl, generated/layout.wgsl.

const JT_FIXED: i32 = 0;
const JT_FREE: i32 = 1;
const JT_REVOLUTE: i32 = 2;
const JT_PRISMATIC: i32 = 3;
const JT_BALL: i32 = 4;

// which kinematics set a pass writes: the main one (at q_n or q_{n+1}) or the contact stage's
const KIN_MAIN: u32 = 0u;
const KIN_CONTACT: u32 = 1u;
// where joint positions come from
const Q_INPUT: u32 = 0u;
const Q_INPUT_F32: u32 = 1u;
const Q_OUT: u32 = 2u;

fn fk_q(src: u32, i: u32) -> df {
  if (src == Q_OUT) {
    return get_q_out(i);
  }
  let q = get_joint_q(i);
  if (src == Q_INPUT_F32) {
    return df(df_to_f32(q), 0.0);
  }
  return q;
}

fn model_xform_p(j: u32) -> Xform {
  return Xform(
    V3(get_joint_X_p(j, 0u), get_joint_X_p(j, 1u), get_joint_X_p(j, 2u)),
    Quat(get_joint_X_p(j, 3u), get_joint_X_p(j, 4u), get_joint_X_p(j, 5u), get_joint_X_p(j, 6u)),
  );
}

fn kin_body_X(ks: u32, b: u32) -> Xform {
  if (ks == KIN_CONTACT) {
    return Xform(
      V3(get_cbody_X(b, 0u), get_cbody_X(b, 1u), get_cbody_X(b, 2u)),
      Quat(get_cbody_X(b, 3u), get_cbody_X(b, 4u), get_cbody_X(b, 5u), get_cbody_X(b, 6u)),
    );
  }
  return Xform(
    V3(get_body_X(b, 0u), get_body_X(b, 1u), get_body_X(b, 2u)),
    Quat(get_body_X(b, 3u), get_body_X(b, 4u), get_body_X(b, 5u), get_body_X(b, 6u)),
  );
}

fn xform_k(x: Xform, k: u32) -> df {
  switch (k) {
    case 0u: { return x.p.x; }
    case 1u: { return x.p.y; }
    case 2u: { return x.p.z; }
    case 3u: { return x.q.x; }
    case 4u: { return x.q.y; }
    case 5u: { return x.q.z; }
    default: { return x.q.w; }
  }
}

fn kin_set_body_X(ks: u32, b: u32, x: Xform) {
  for (var k = 0u; k < 7u; k++) {
    if (ks == KIN_CONTACT) {
      set_cbody_X(b, k, xform_k(x, k));
    } else {
      set_body_X(b, k, xform_k(x, k));
    }
  }
}

fn kin_set_joint_X_wF(ks: u32, j: u32, x: Xform) {
  for (var k = 0u; k < 7u; k++) {
    if (ks == KIN_CONTACT) {
      set_cjoint_X_wF(j, k, xform_k(x, k));
    } else {
      set_joint_X_wF(j, k, xform_k(x, k));
    }
  }
}

fn kin_set_S(ks: u32, d: u32, w: V3, v: V3) {
  let s = array<df, 6>(w.x, w.y, w.z, v.x, v.y, v.z);
  for (var k = 0u; k < 6u; k++) {
    if (ks == KIN_CONTACT) {
      set_cdof_S(d, k, s[k]);
    } else {
      set_dof_S(d, k, s[k]);
    }
  }
}

// quaternion at q[o..o+4) divided by its norm (a zero quaternion is kept, like normalizedQuatInto)
fn fk_quat(src: u32, o: u32) -> Quat {
  let q = Quat(fk_q(src, o), fk_q(src, o + 1u), fk_q(src, o + 2u), fk_q(src, o + 3u));
  var n = df_sqrt(df_add(df_add(df_mul(q.x, q.x), df_mul(q.y, q.y)), df_add(df_mul(q.z, q.z), df_mul(q.w, q.w))));
  if (!(n.x > 0.0)) {
    n = df(1.0, 0.0);
  }
  let s = df_div(df(1.0, 0.0), n);
  return Quat(df_mul(q.x, s), df_mul(q.y, s), df_mul(q.z, s), df_mul(q.w, s));
}

fn model_xform_c_inv(j: u32) -> Xform {
  return Xform(
    V3(get_joint_X_c_inv(j, 0u), get_joint_X_c_inv(j, 1u), get_joint_X_c_inv(j, 2u)),
    Quat(get_joint_X_c_inv(j, 3u), get_joint_X_c_inv(j, 4u), get_joint_X_c_inv(j, 5u), get_joint_X_c_inv(j, 6u)),
  );
}

fn unit_axis(k: u32) -> V3 {
  var e = v3_zero();
  if (k == 0u) {
    e.x = df(1.0, 0.0);
  } else if (k == 1u) {
    e.y = df(1.0, 0.0);
  } else {
    e.z = df(1.0, 0.0);
  }
  return e;
}

// poses and motion subspaces of the joints of tree t (forwardKinematics). Written so that each
// df64 routine has one call site: the three compositions X_wB = X_wP ∘ X_p ∘ X_FM(q) ∘ X_c⁻¹ share
// one xform_mul in a loop, and every motion-subspace column one quat_rotate.
fn fk_tree(t: u32, src: u32, ks: u32) {
  let j0 = u32(get_tree_joint_start(t));
  let j1 = u32(get_tree_joint_start(t + 1u));
  for (var j = j0; j < j1; j++) {
    let p = get_joint_parent(j);
    let ty = get_joint_type(j);
    let qs = u32(get_joint_q_start(j));
    let axis = V3(get_joint_axis(j, 0u), get_joint_axis(j, 1u), get_joint_axis(j, 2u));
    // X_FM(q)
    var X_FM = xform_identity();
    if (ty == JT_REVOLUTE) {
      X_FM.q = quat_from_axis_angle(axis, fk_q(src, qs));
    } else if (ty == JT_PRISMATIC) {
      X_FM.p = v3_scale(axis, fk_q(src, qs));
    } else if (ty == JT_BALL || ty == JT_FREE) {
      var o = qs;
      if (ty == JT_FREE) {
        X_FM.p = V3(fk_q(src, qs), fk_q(src, qs + 1u), fk_q(src, qs + 2u));
        o = qs + 3u;
      }
      X_FM.q = fk_quat(src, o);
    }
    var X = xform_identity();
    if (p >= 0) {
      X = kin_body_X(ks, u32(p));
    }
    var X_wF = X;
    var anchor = v3_zero();
    for (var step = 0u; step < dyn(3u); step++) {
      var B = model_xform_p(j);
      if (step == 1u) {
        X_wF = X;
        B = X_FM;
      } else if (step == 2u) {
        anchor = X.p;
        B = model_xform_c_inv(j);
      }
      X = xform_mul(X, B);
    }
    kin_set_joint_X_wF(ks, j, X_wF);
    if (ks == KIN_MAIN) {
      set_joint_anchor(j, 0u, anchor.x);
      set_joint_anchor(j, 1u, anchor.y);
      set_joint_anchor(j, 2u, anchor.z);
    }
    kin_set_body_X(ks, j, X);
    let R = quat_to_mat3(X.q);
    for (var k = 0u; k < 9u; k++) {
      if (ks == KIN_CONTACT) {
        set_cbody_R(j, k, R[k]);
      } else {
        set_body_R(j, k, R[k]);
      }
    }
    // motion subspace columns: revolute/prismatic: the axis in world; ball: the joint frame's
    // axes; free: world axes, angular then linear. Angular columns are (a; anchor × a).
    let ds = u32(get_joint_qd_start(j));
    let nd = u32(get_joint_qd_start(j + 1u)) - ds;
    for (var k = 0u; k < nd; k++) {
      var a = axis;
      var angular = ty != JT_PRISMATIC;
      if (ty == JT_BALL) {
        a = unit_axis(k);
      } else if (ty == JT_FREE) {
        a = unit_axis(k % 3u);
        angular = k < 3u;
      }
      if (ty != JT_FREE) {
        a = quat_rotate(X_wF.q, a);
      }
      if (angular) {
        kin_set_S(ks, ds + k, a, v3_cross(anchor, a));
      } else {
        kin_set_S(ks, ds + k, v3_zero(), a);
      }
    }
  }
  // COM and world inertia
  for (var b = j0; b < j1; b++) {
    var R: array<df, 9>;
    for (var k = 0u; k < 9u; k++) {
      if (ks == KIN_CONTACT) {
        R[k] = get_cbody_R(b, k);
      } else {
        R[k] = get_body_R(b, k);
      }
    }
    let X = kin_body_X(ks, b);
    let c = v3_add(X.p, mat3_mul_vec(R, V3(get_body_com(b, 0u), get_body_com(b, 1u), get_body_com(b, 2u))));
    if (ks == KIN_CONTACT) {
      set_cbody_com_w(b, 0u, c.x);
      set_cbody_com_w(b, 1u, c.y);
      set_cbody_com_w(b, 2u, c.z);
    } else {
      set_body_com_w(b, 0u, c.x);
      set_body_com_w(b, 1u, c.y);
      set_body_com_w(b, 2u, c.z);
      // I_w = R·I·Rᵀ
      for (var row = 0u; row < dyn(3u); row++) {
        for (var col = 0u; col < dyn(3u); col++) {
          var acc = df(0.0, 0.0);
          for (var m = 0u; m < dyn(3u); m++) {
            var tm = df(0.0, 0.0);
            for (var n = 0u; n < dyn(3u); n++) {
              tm = df_add(tm, df_mul(R[row * 3u + n], get_body_inertia(b, n * 3u + m)));
            }
            acc = df_add(acc, df_mul(tm, R[col * 3u + m]));
          }
          set_body_I_w(b, row * 3u + col, acc);
        }
      }
    }
  }
}

fn get_r_MC(j: u32) -> V3 {
  return V3(
    df_sub(get_body_com_w(j, 0u), get_joint_anchor(j, 0u)),
    df_sub(get_body_com_w(j, 1u), get_joint_anchor(j, 1u)),
    df_sub(get_body_com_w(j, 2u), get_joint_anchor(j, 2u)),
  );
}

// public → internal velocities (and forces) of tree t: free joints (v_C; ω) → (ω; v_C − ω × r),
// forces (f; τ_C) → (τ_C + r × f; f); the feed-forward of driven DOFs is left to the PD constraint;
// plus the joint springs (the twin of appliedForces in engine/pipeline/free_motion.ts)
fn boundary_tree(t: u32) {
  let j0 = u32(get_tree_joint_start(t));
  let j1 = u32(get_tree_joint_start(t + 1u));
  for (var j = j0; j < j1; j++) {
    let s = u32(get_joint_qd_start(j));
    let e = u32(get_joint_qd_start(j + 1u));
    if (get_joint_type(j) != JT_FREE) {
      for (var k = s; k < e; k++) {
        set_v_n(k, get_joint_qd(k));
        set_tau(k, get_joint_f(k));
      }
    } else {
      let r = get_r_MC(j);
      let vC = V3(get_joint_qd(s), get_joint_qd(s + 1u), get_joint_qd(s + 2u));
      let w = V3(get_joint_qd(s + 3u), get_joint_qd(s + 4u), get_joint_qd(s + 5u));
      let vM = v3_sub(vC, v3_cross(w, r));
      set_v_n(s, w.x);
      set_v_n(s + 1u, w.y);
      set_v_n(s + 2u, w.z);
      set_v_n(s + 3u, vM.x);
      set_v_n(s + 4u, vM.y);
      set_v_n(s + 5u, vM.z);
      let f = V3(get_joint_f(s), get_joint_f(s + 1u), get_joint_f(s + 2u));
      let tc = V3(get_joint_f(s + 3u), get_joint_f(s + 4u), get_joint_f(s + 5u));
      let n = v3_add(tc, v3_cross(r, f));
      set_tau(s, n.x);
      set_tau(s + 1u, n.y);
      set_tau(s + 2u, n.z);
      set_tau(s + 3u, f.x);
      set_tau(s + 4u, f.y);
      set_tau(s + 5u, f.z);
    }
    for (var k = s; k < e; k++) {
      if (get_dof_drive(k) != 0) {
        set_tau(k, df(0.0, 0.0));
      }
    }
    // passive joint spring −k·(q − q_ref) of a revolute or prismatic DOF (explicit)
    let ty = get_joint_type(j);
    if (ty == JT_REVOLUTE || ty == JT_PRISMATIC) {
      let ks = get_joint_stiffness(s);
      if (ks.x != 0.0) {
        let dq = df_sub(get_joint_q(u32(get_joint_q_start(j))), get_joint_spring_ref(s));
        set_tau(s, df_sub(get_tau(s), df_mul(ks, dq)));
      }
    }
  }
}

fn fk_v(from_next: bool, k: u32) -> df {
  if (from_next) {
    return get_v_next(k);
  }
  return get_v_n(k);
}

// body twists and velocity-product accelerations of tree t (forwardVelocity)
fn velocity_tree(t: u32, from_next: bool) {
  let j0 = u32(get_tree_joint_start(t));
  let j1 = u32(get_tree_joint_start(t + 1u));
  for (var j = j0; j < j1; j++) {
    let p = get_joint_parent(j);
    var w = v3_zero();
    var u = v3_zero();
    let s = u32(get_joint_qd_start(j));
    let e = u32(get_joint_qd_start(j + 1u));
    for (var k = s; k < e; k++) {
      let qd = fk_v(from_next, k);
      w = v3_add(w, v3_scale(V3(get_dof_S(k, 0u), get_dof_S(k, 1u), get_dof_S(k, 2u)), qd));
      u = v3_add(u, v3_scale(V3(get_dof_S(k, 3u), get_dof_S(k, 4u), get_dof_S(k, 5u)), qd));
    }
    var c0 = v3_zero();
    var c1 = v3_zero();
    if (get_joint_type(j) == JT_FREE) {
      // c = (0; v_M × ω)
      let om = V3(fk_v(from_next, s), fk_v(from_next, s + 1u), fk_v(from_next, s + 2u));
      let vm = V3(fk_v(from_next, s + 3u), fk_v(from_next, s + 4u), fk_v(from_next, s + 5u));
      c1 = v3_cross(vm, om);
    } else if (p >= 0) {
      // c = V_P ×m (S q̇) = (pw × w; pw × u + pu × w)
      let P = u32(p);
      let pw = V3(get_body_V(P, 0u), get_body_V(P, 1u), get_body_V(P, 2u));
      let pu = V3(get_body_V(P, 3u), get_body_V(P, 4u), get_body_V(P, 5u));
      c0 = v3_cross(pw, w);
      c1 = v3_add(v3_cross(pw, u), v3_cross(pu, w));
    }
    set_body_c(j, 0u, c0.x);
    set_body_c(j, 1u, c0.y);
    set_body_c(j, 2u, c0.z);
    set_body_c(j, 3u, c1.x);
    set_body_c(j, 4u, c1.y);
    set_body_c(j, 5u, c1.z);
    if (p >= 0) {
      let P = u32(p);
      w = v3_add(V3(get_body_V(P, 0u), get_body_V(P, 1u), get_body_V(P, 2u)), w);
      u = v3_add(V3(get_body_V(P, 3u), get_body_V(P, 4u), get_body_V(P, 5u)), u);
    }
    set_body_V(j, 0u, w.x);
    set_body_V(j, 1u, w.y);
    set_body_V(j, 2u, w.z);
    set_body_V(j, 3u, u.x);
    set_body_V(j, 4u, u.y);
    set_body_V(j, 5u, u.z);
  }
}

// stage 1 of the step: kinematics at q_n, internal velocities and forces, contact-stage kinematics
@compute @workgroup_size(64)
fn fk_boundary(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let t = gid.x;
  if (t >= L.tree_count) {
    return;
  }
  // two passes through one (inlined) fk_tree: the main kinematics at q_n, then the contact stage's
  // at q_n or fl32(q_n); the trip count comes from a uniform so the loop is not unrolled
  let passes = 1u + u32(L.one);
  for (var ip = 0u; ip < passes; ip++) {
    var src = Q_INPUT;
    if (ip == KIN_CONTACT && L.f64_pose == 0u) {
      src = Q_INPUT_F32;
    }
    fk_tree(t, src, ip);
  }
  boundary_tree(t);
  velocity_tree(t, false);
}

// end of the step: kinematics at q_{n+1}, public velocities and body state (writeBodyState)
@compute @workgroup_size(64)
fn fk_final(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let t = gid.x;
  if (t >= L.tree_count) {
    return;
  }
  fk_tree(t, Q_OUT, KIN_MAIN);
  let j0 = u32(get_tree_joint_start(t));
  let j1 = u32(get_tree_joint_start(t + 1u));
  // internal → public: free joints (ω; v_M) → (v_M + ω × r; ω)
  for (var j = j0; j < j1; j++) {
    let s = u32(get_joint_qd_start(j));
    let e = u32(get_joint_qd_start(j + 1u));
    if (get_joint_type(j) != JT_FREE) {
      for (var k = s; k < e; k++) {
        set_qd_out(k, get_v_next(k));
      }
    } else {
      let r = get_r_MC(j);
      let w = V3(get_v_next(s), get_v_next(s + 1u), get_v_next(s + 2u));
      let vC = v3_add(V3(get_v_next(s + 3u), get_v_next(s + 4u), get_v_next(s + 5u)), v3_cross(w, r));
      set_qd_out(s, vC.x);
      set_qd_out(s + 1u, vC.y);
      set_qd_out(s + 2u, vC.z);
      set_qd_out(s + 3u, w.x);
      set_qd_out(s + 4u, w.y);
      set_qd_out(s + 5u, w.z);
    }
  }
  velocity_tree(t, true);
  for (var b = j0; b < j1; b++) {
    for (var k = 0u; k < 7u; k++) {
      set_body_q_out(b, k, get_body_X(b, k));
    }
    let w = V3(get_body_V(b, 0u), get_body_V(b, 1u), get_body_V(b, 2u));
    let c = V3(get_body_com_w(b, 0u), get_body_com_w(b, 1u), get_body_com_w(b, 2u));
    let vC = v3_add(V3(get_body_V(b, 3u), get_body_V(b, 4u), get_body_V(b, 5u)), v3_cross(w, c));
    set_body_qd_out(b, 0u, vC.x);
    set_body_qd_out(b, 1u, vC.y);
    set_body_qd_out(b, 2u, vC.z);
    set_body_qd_out(b, 3u, w.x);
    set_body_qd_out(b, 4u, w.y);
    set_body_qd_out(b, 5u, w.z);
  }
}
