// Free motion (SPEC §3.2 step 2), one invocation per tree: the mass matrix by the composite-rigid-
// body algorithm (engine/dynamics/crba.ts), bias forces by recursive Newton–Euler
// (engine/dynamics/rnea.ts), A = M + dt·D and v* = v + dt·A⁻¹k (engine/pipeline/free_motion.ts).
// M, k and A in df64 (fp64 on the CPU); the factorization, the solve and v* in precision P
// (free_motion_solve_precision). Needs df64, spatial, layout, a precision prelude, cholesky.

// 13-number spatial inertia about the world origin of body b: m, h = m·c, I₀ = I_c + m(|c|²1 − ccᵀ)
fn body_spatial_inertia(b: u32) -> array<df, 13> {
  let mass = get_body_mass(b);
  let c = V3(get_body_com_w(b, 0u), get_body_com_w(b, 1u), get_body_com_w(b, 2u));
  let cc = v3_dot(c, c);
  let cv = array<df, 3>(c.x, c.y, c.z);
  var out: array<df, 13>;
  out[0] = mass;
  out[1] = df_mul(mass, c.x);
  out[2] = df_mul(mass, c.y);
  out[3] = df_mul(mass, c.z);
  for (var r = 0u; r < 3u; r++) {
    for (var k = 0u; k < 3u; k++) {
      var v = df_neg(df_mul(df_mul(mass, cv[r]), cv[k]));
      if (r == k) {
        v = df_add(v, df_mul(mass, cc));
      }
      out[4u + r * 3u + k] = df_add(get_body_I_w(b, r * 3u + k), v);
    }
  }
  return out;
}

// I·V = (I₀ω + h × v₀; m·v₀ − h × ω)
fn inertia_times_twist(I: array<df, 13>, w: V3, v: V3) -> array<df, 6> {
  let h = V3(I[1], I[2], I[3]);
  let M = array<df, 9>(I[4], I[5], I[6], I[7], I[8], I[9], I[10], I[11], I[12]);
  let n = v3_add(mat3_mul_vec(M, w), v3_cross(h, v));
  let f = v3_sub(v3_scale(v, I[0]), v3_cross(h, w));
  return array<df, 6>(n.x, n.y, n.z, f.x, f.y, f.z);
}

fn load_composite(b: u32) -> array<df, 13> {
  var I: array<df, 13>;
  for (var k = 0u; k < 13u; k++) {
    I[k] = get_composite(b, k);
  }
  return I;
}

fn dof_S_w(d: u32) -> V3 {
  return V3(get_dof_S(d, 0u), get_dof_S(d, 1u), get_dof_S(d, 2u));
}

fn dof_S_v(d: u32) -> V3 {
  return V3(get_dof_S(d, 3u), get_dof_S(d, 4u), get_dof_S(d, 5u));
}

fn dot6(d: u32, F: array<df, 6>) -> df {
  var s = df_mul(get_dof_S(d, 0u), F[0]);
  for (var k = 1u; k < 6u; k++) {
    s = df_add(s, df_mul(get_dof_S(d, k), F[k]));
  }
  return s;
}

// M of tree t (with armature) into tree_A (crbaTree)
fn crba_tree(t: u32) {
  let j0 = u32(get_tree_joint_start(t));
  let j1 = u32(get_tree_joint_start(t + 1u));
  let v0 = u32(get_tree_dof_start(t));
  let nv = u32(get_tree_dof_start(t + 1u)) - v0;
  let a0 = u32(get_tree_A_start(t));
  for (var k = 0u; k < nv * nv; k++) {
    set_tree_A(a0 + k, df(0.0, 0.0));
  }
  for (var b = j0; b < j1; b++) {
    let I = body_spatial_inertia(b);
    for (var k = 0u; k < 13u; k++) {
      set_composite(b, k, I[k]);
    }
  }
  // composites, leaves first
  for (var bb = j1; bb > j0; bb--) {
    let b = bb - 1u;
    let p = get_joint_parent(b);
    if (p >= i32(j0)) {
      for (var k = 0u; k < 13u; k++) {
        set_composite(u32(p), k, df_add(get_composite(u32(p), k), get_composite(b, k)));
      }
    }
  }
  for (var b = j0; b < j1; b++) {
    let Ic = load_composite(b);
    for (var i = u32(get_joint_qd_start(b)); i < u32(get_joint_qd_start(b + 1u)); i++) {
      let F = inertia_times_twist(Ic, dof_S_w(i), dof_S_v(i));
      var a = i32(b);
      loop {
        if (a < 0) {
          break;
        }
        let au = u32(a);
        for (var k = u32(get_joint_qd_start(au)); k < u32(get_joint_qd_start(au + 1u)); k++) {
          if (au == b && k > i) {
            continue;
          }
          let val = dot6(k, F);
          let r = i - v0;
          let c = k - v0;
          set_tree_A(a0 + r * nv + c, val);
          set_tree_A(a0 + c * nv + r, val);
        }
        a = get_joint_parent(au);
      }
    }
  }
  for (var b = j0; b < j1; b++) {
    for (var k = u32(get_joint_qd_start(b)); k < u32(get_joint_qd_start(b + 1u)); k++) {
      let r = k - v0;
      let idx = a0 + r * nv + r;
      set_tree_A(idx, df_add(get_tree_A(idx), get_joint_armature(u32(get_dof_public(k)))));
    }
  }
}

// bias forces C·v + g − Jᵀf_ext of tree t into `bias` (rneaTree with q̈ = 0)
fn rnea_tree(t: u32) {
  let j0 = u32(get_tree_joint_start(t));
  let j1 = u32(get_tree_joint_start(t + 1u));
  for (var b = j0; b < j1; b++) {
    let p = get_joint_parent(b);
    var A: array<df, 6>;
    if (p >= 0) {
      for (var k = 0u; k < 6u; k++) {
        A[k] = get_rnea_A(u32(p), k);
      }
    } else {
      A = array<df, 6>(df(0.0, 0.0), df(0.0, 0.0), df(0.0, 0.0), -get_gravity(0u, 0u), -get_gravity(0u, 1u), -get_gravity(0u, 2u));
    }
    for (var k = 0u; k < 6u; k++) {
      A[k] = df_add(A[k], get_body_c(b, k));
      set_rnea_A(b, k, A[k]);
    }
    let I = body_spatial_inertia(b);
    var f = inertia_times_twist(I, V3(A[0], A[1], A[2]), V3(A[3], A[4], A[5]));
    let w = V3(get_body_V(b, 0u), get_body_V(b, 1u), get_body_V(b, 2u));
    let u = V3(get_body_V(b, 3u), get_body_V(b, 4u), get_body_V(b, 5u));
    let h = inertia_times_twist(I, w, u);
    // (w, u) ×* (n, l) = (w × n + u × l, w × l)
    let hn = V3(h[0], h[1], h[2]);
    let hl = V3(h[3], h[4], h[5]);
    let top = v3_add(v3_cross(w, hn), v3_cross(u, hl));
    let bot = v3_cross(w, hl);
    f[0] = df_add(f[0], top.x);
    f[1] = df_add(f[1], top.y);
    f[2] = df_add(f[2], top.z);
    f[3] = df_add(f[3], bot.x);
    f[4] = df_add(f[4], bot.y);
    f[5] = df_add(f[5], bot.z);
    // external wrenches at the COM: the public wrench (f; τ_C) and the gravity compensation −gc·m·g
    let gc = get_body_gravcomp(b);
    if (gc.x != 0.0 || L.has_body_f != 0u) {
      var fe = V3(df(0.0, 0.0), df(0.0, 0.0), df(0.0, 0.0));
      var te = fe;
      if (L.has_body_f != 0u) {
        fe = V3(get_body_f(b, 0u), get_body_f(b, 1u), get_body_f(b, 2u));
        te = V3(get_body_f(b, 3u), get_body_f(b, 4u), get_body_f(b, 5u));
      }
      if (gc.x != 0.0) {
        let mg = df_mul(gc, get_body_mass(b));
        fe = v3_sub(fe, v3_scale(V3(get_gravity(0u, 0u), get_gravity(0u, 1u), get_gravity(0u, 2u)), mg));
      }
      // (f; τ_C) → spatial (τ_C + c × f; f)
      let c = V3(get_body_com_w(b, 0u), get_body_com_w(b, 1u), get_body_com_w(b, 2u));
      let n = v3_add(te, v3_cross(c, fe));
      f[0] = df_sub(f[0], n.x);
      f[1] = df_sub(f[1], n.y);
      f[2] = df_sub(f[2], n.z);
      f[3] = df_sub(f[3], fe.x);
      f[4] = df_sub(f[4], fe.y);
      f[5] = df_sub(f[5], fe.z);
    }
    for (var k = 0u; k < 6u; k++) {
      set_rnea_f(b, k, f[k]);
    }
  }
  for (var bb = j1; bb > j0; bb--) {
    let b = bb - 1u;
    var f: array<df, 6>;
    for (var k = 0u; k < 6u; k++) {
      f[k] = get_rnea_f(b, k);
    }
    for (var i = u32(get_joint_qd_start(b)); i < u32(get_joint_qd_start(b + 1u)); i++) {
      set_bias(i, dot6(i, f));
    }
    let p = get_joint_parent(b);
    if (p >= i32(j0)) {
      for (var k = 0u; k < 6u; k++) {
        set_rnea_f(u32(p), k, df_add(get_rnea_f(u32(p), k), f[k]));
      }
    }
  }
}

@compute @workgroup_size(64)
fn free_motion(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let t = gid.x;
  if (t >= L.tree_count) {
    return;
  }
  set_tree_fm_bad(t, 0);
  let v0 = u32(get_tree_dof_start(t));
  let nv = u32(get_tree_dof_start(t + 1u)) - v0;
  if (nv == 0u) {
    return;
  }
  crba_tree(t);
  rnea_tree(t);
  let a0 = u32(get_tree_A_start(t));
  let dt = P_dt();
  // A = M + dt·D; k = τ − bias − D·v
  for (var i = 0u; i < nv; i++) {
    let d = v0 + i;
    let damping = get_joint_damping(u32(get_dof_public(d)));
    let idx = a0 + i * nv + i;
    set_tree_A(idx, df_add(get_tree_A(idx), df_mul(dt, damping)));
    set_A_diag(d, get_tree_A(idx));
    set_fm_rhs(d, df_sub(df_sub(get_tau(d), get_bias(d)), df_mul(damping, get_v_n(d))));
  }
  // L ← A (lower triangle, rounded to P), factor and solve in P
  for (var i = 0u; i < nv; i++) {
    for (var j = 0u; j <= i; j++) {
      set_tree_L(a0 + i * nv + j, p_to(p_from(get_tree_A(a0 + i * nv + j))));
    }
    set_fm_rhs(v0 + i, p_to(p_from(get_fm_rhs(v0 + i))));
  }
  let lbase = L.o_tree_L + a0;
  let rbase = L.o_fm_rhs + v0;
  if (chol_factor(lbase, nv) >= 0) {
    set_tree_fm_bad(t, 1);
    for (var i = 0u; i < nv; i++) {
      set_v_star(v0 + i, get_v_n(v0 + i));
    }
    return;
  }
  chol_solve(lbase, nv, rbase);
  let h = p_from(dt);
  for (var i = 0u; i < nv; i++) {
    let d = v0 + i;
    set_v_star(d, p_to(p_add(p_from(get_v_n(d)), p_mul(h, p_from(get_fm_rhs(d))))));
  }
}
