// Position integration (SPEC §3.5), one invocation per world: the twin of
// engine/pipeline/integrate.ts plus the containment of engine/pipeline/step.ts (a world whose
// status is invalid_input, or whose q_{n+1} is not finite, keeps its input positions; in the latter
// case also its input velocities). midpoint: v̄ = (v_n + v_{n+1})/2; sap_euler: v̄ = v_{n+1}.
// df64 throughout. Needs df64, spatial, layout.

const NF_Q: i32 = 4;

fn copy_q_in(c0: u32, c1: u32) {
  for (var c = c0; c < c1; c++) {
    set_q_out(c, get_joint_q(c));
  }
}

fn vbar(d: u32) -> df {
  if (L.integration == 0u) {
    return df_mul_f(df_add(get_v_n(d), get_v_next(d)), 0.5);
  }
  return get_v_next(d);
}

@compute @workgroup_size(64)
fn integrate(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let w = gid.x;
  if (w >= L.num_worlds) {
    return;
  }
  let c0 = u32(get_world_coord_start(w));
  let c1 = u32(get_world_coord_start(w + 1u));
  // this step's start velocities, for the next step's accelerated warm start
  for (var d = u32(get_world_dof_start(w)); d < u32(get_world_dof_start(w + 1u)); d++) {
    set_v_prev(d, get_v_n(d));
  }
  if (get_world_i(w, 1u) == 3) {
    copy_q_in(c0, c1);
    return;
  }
  let h = P_dt();
  let j0 = u32(get_world_joint_start(w));
  let j1 = u32(get_world_joint_start(w + 1u));
  for (var j = j0; j < j1; j++) {
    let s = u32(get_joint_q_start(j));
    let d = u32(get_joint_qd_start(j));
    let ty = get_joint_type(j);
    // the quaternion to advance (one call site of quat_integrate keeps the kernel small)
    var qo = 0xffffffffu;
    var wq = v3_zero();
    if (ty == 2 || ty == 3) {
      set_q_out(s, df_add(get_joint_q(s), df_mul(h, vbar(d))));
    } else if (ty == 4) {
      qo = s;
      wq = V3(vbar(d), vbar(d + 1u), vbar(d + 2u));
    } else if (ty == 1) {
      // velocities are in world; q is relative to the world-fixed parent joint frame F
      let qp = Quat(get_joint_X_p(j, 3u), get_joint_X_p(j, 4u), get_joint_X_p(j, 5u), get_joint_X_p(j, 6u));
      wq = quat_rotate_inv(qp, V3(vbar(d), vbar(d + 1u), vbar(d + 2u)));
      let vF = quat_rotate_inv(qp, V3(vbar(d + 3u), vbar(d + 4u), vbar(d + 5u)));
      set_q_out(s, df_add(get_joint_q(s), df_mul(h, vF.x)));
      set_q_out(s + 1u, df_add(get_joint_q(s + 1u), df_mul(h, vF.y)));
      set_q_out(s + 2u, df_add(get_joint_q(s + 2u), df_mul(h, vF.z)));
      qo = s + 3u;
    }
    if (qo != 0xffffffffu) {
      let q = Quat(get_joint_q(qo), get_joint_q(qo + 1u), get_joint_q(qo + 2u), get_joint_q(qo + 3u));
      let qn = quat_integrate(q, wq, h);
      set_q_out(qo, qn.x);
      set_q_out(qo + 1u, qn.y);
      set_q_out(qo + 2u, qn.z);
      set_q_out(qo + 3u, qn.w);
    }
  }
  for (var c = c0; c < c1; c++) {
    if (df_nonfinite(get_q_out(c))) {
      set_world_i(w, 5u, NF_Q);
      set_world_i(w, 1u, 3);
      copy_q_in(c0, c1);
      let d0 = u32(get_world_dof_start(w));
      let d1 = u32(get_world_dof_start(w + 1u));
      for (var d = d0; d < d1; d++) {
        set_v_next(d, get_v_n(d));
      }
      return;
    }
  }
}
