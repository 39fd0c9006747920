// Joint-limit, PD-drive and joint-friction constraints (SPEC §3.3), one invocation per DOF: the
// twin of engine/pipeline/joint_constraints.ts with makeLimitParams, makePdParams and
// makeJointFrictionParams (engine/sap/constraints/{limit,pd,joint_friction}.ts). df64 throughout. Only 1-DOF (revolute, prismatic) joints
// carry these constraints. Needs df64, spatial, layout.

const NEAR_RIGID_BETA2 = df(0.009999999776482582, 2.2351742678949904e-10);
const INV_4PI2_J = df(0.02533029578626156, 1.243228853198275e-10);
const LIMIT_WINDOW_FACTOR: f32 = 2.0;
const GPU_INF: f32 = 1e30;

@compute @workgroup_size(64)
fn joint_constraints(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let d = gid.x;
  if (d >= L.dof_count) {
    return;
  }
  set_lim_rows(d, 0);
  set_pd_active(d, 0);
  set_fr_active(d, 0);
  let j = u32(get_dof_joint(d));
  let ty = get_joint_type(j);
  if (ty != 2 && ty != 3) {
    return;
  }
  let dt = P_dt();
  let q0 = get_joint_q(u32(get_joint_q_start(j)));
  // Delassus weight of the DOF: 1/A_dd
  let w = df_div(df(1.0, 0.0), get_A_diag(d));
  let Rnr = df_mul(df_mul(NEAR_RIGID_BETA2, INV_4PI2_J), w);
  if (get_dof_limit(d) != 0) {
    let window = df_mul_f(df_mul(dt, df_max(df_abs(get_v_n(d)), df_abs(get_v_star(d)))), LIMIT_WINDOW_FACTOR);
    let lower = get_joint_limit_lower(d);
    let upper = get_joint_limit_upper(d);
    var rows = 0;
    if (lower.x > -GPU_INF && df_gt(lower, df_sub(q0, window))) {
      rows |= 1;
    }
    if (upper.x < GPU_INF && df_lt(upper, df_add(q0, window))) {
      rows |= 2;
    }
    if (rows != 0) {
      let tau_d = get_joint_limit_tau_d(d);
      let denom = df_add(dt, tau_d);
      let R = df_max(Rnr, df_div(get_joint_limit_inv_ke(d), df_mul(dt, denom)));
      set_lim_param(d, 0u, R);
      set_lim_param(d, 1u, df_div(-df_sub(q0, lower), denom));
      set_lim_param(d, 2u, R);
      set_lim_param(d, 3u, df_div(-df_sub(upper, q0), denom));
    }
    set_lim_rows(d, rows);
  }
  if (get_dof_drive(d) != 0) {
    var kp = get_joint_target_ke(d);
    var kd = get_joint_target_kd(d);
    // near-rigid gain clamp (pdEffectiveGains)
    let R = df_div(df(1.0, 0.0), df_mul(dt, df_add(df_mul(dt, kp), kd)));
    if (df_lt(R, Rnr)) {
      if (df_gt(df_mul(dt, kp), kd)) {
        let tau = df_div(kd, kp);
        kp = df_div(df(1.0, 0.0), df_mul(df_mul(dt, df_add(dt, tau)), Rnr));
        kd = df_mul(tau, kp);
      } else {
        let kdEff = df_div(df(1.0, 0.0), df_mul(df_mul(dt, df_add(df(1.0, 0.0), df_div(df_mul(dt, kp), kd))), Rnr));
        kp = df_mul(df_div(kp, kd), kdEff);
        kd = kdEff;
      }
    }
    set_pd_param(d, 0u, dt);
    set_pd_param(d, 1u, kp);
    set_pd_param(d, 2u, kd);
    set_pd_param(d, 3u, get_joint_effort_limit(d));
    set_pd_param(d, 4u, q0);
    set_pd_param(d, 5u, get_joint_target_pos(d));
    set_pd_param(d, 6u, get_joint_target_vel(d));
    set_pd_param(d, 7u, get_joint_f(d));
    set_pd_active(d, 1);
  }
  let tau_c = get_dof_friction(d);
  if (tau_c.x > 0.0) {
    // joint friction: R = σ·w (σ: joint_friction_sigma), γ_max = δt·τ_c
    set_fr_param(d, 0u, df_mul(P_joint_friction_sigma(), w));
    set_fr_param(d, 1u, df_mul(dt, tau_c));
    set_fr_active(d, 1);
  }
}
