// The Newton direction (SPEC §3.4), one invocation per world: the blocked Cholesky factorization of
// H and the solve H·Δv = −∇ℓ in precision P (contact_linear_solve_precision; the twin of
// DenseCholesky in engine/sap/linalg/cholesky.ts), then the line data in df64: Δp = AΔv, Δvc = JΔv,
// ΔvᵀAΔv, Δpᵀ(v − v*) and φ′(0) = ∇ℓ·Δv. Needs df64, spatial, layout, a precision prelude,
// common/cholesky.wgsl, kernels/sap_constraints.wgsl.

@compute @workgroup_size(64)
fn sap_factor(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let w = gid.x;
  if (w >= L.num_worlds || get_world_i(w, WI_ACTIVE) != 1) {
    return;
  }
  let np = u32(get_world_i(w, WI_NVP));
  let hb = L.o_sap_H + u32(get_world_H_start(w));
  if (chol_factor(hb, np) >= 0) {
    set_world_i(w, WI_STATUS, ST_LS_FAILED);
    set_world_i(w, WI_ACTIVE, 0);
  }
}

@compute @workgroup_size(64)
fn sap_solve(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let w = gid.x;
  if (w >= L.num_worlds || get_world_i(w, WI_ACTIVE) != 1) {
    return;
  }
  let d0 = u32(get_world_dof_start(w));
  let np = u32(get_world_i(w, WI_NVP));
  let hb = L.o_sap_H + u32(get_world_H_start(w));
  for (var a = 0u; a < np; a++) {
    set_sap_dv(d0 + a, p_to(p_from(-get_sap_grad(d0 + a))));
  }
  chol_solve(hb, np, L.o_sap_dv + d0);
  // Δp = A·Δv per participating tree
  let tw0 = u32(get_world_tree_start(w));
  let tw1 = u32(get_world_tree_start(w + 1u));
  for (var t = tw0; t < tw1; t++) {
    let red = get_tree_red(t);
    if (red < 0) {
      continue;
    }
    let off = d0 + u32(red);
    let n = tree_nv(t);
    let a0 = u32(get_tree_A_start(t));
    for (var a = 0u; a < n; a++) {
      var s = df(0.0, 0.0);
      for (var m = 0u; m < n; m++) {
        s = df_add(s, df_mul(get_tree_A(a0 + a * n + m), get_sap_dv(off + m)));
      }
      set_sap_dp(off + a, s);
    }
  }
  world_Jx(w, L.o_sap_dv + d0, L.o_sap_dvc);
  var d2A = df(0.0, 0.0);
  var dpr = df(0.0, 0.0);
  var dphi0 = df(0.0, 0.0);
  for (var a = 0u; a < np; a++) {
    let dv = get_sap_dv(d0 + a);
    let dp = get_sap_dp(d0 + a);
    d2A = df_add(d2A, df_mul(dv, dp));
    dpr = df_add(dpr, df_mul(dp, df_sub(get_sap_v(d0 + a), get_sap_vstar(d0 + a))));
    dphi0 = df_add(dphi0, df_mul(get_sap_grad(d0 + a), dv));
  }
  if (!(d2A.x > 0.0) || df_nonfinite(d2A)) {
    set_world_i(w, WI_NONFINITE, 6);
    set_world_i(w, WI_STATUS, ST_INVALID);
    set_world_i(w, WI_ACTIVE, 0);
    return;
  }
  set_sap_scalar(w, SS_D2A, d2A);
  set_sap_scalar(w, SS_DPR, dpr);
  set_sap_scalar(w, SS_DPHI0, dphi0);
}
