// df64 3-vectors, quaternions (xyzw, Hamilton product) and rigid transforms [p, q], the twins of
// engine/math/{vec3,quat}.ts. Needs common/df64.wgsl.

struct V3 {
  x: df,
  y: df,
  z: df,
}

struct Quat {
  x: df,
  y: df,
  z: df,
  w: df,
}

struct Xform {
  p: V3,
  q: Quat,
}

fn v3(x: df, y: df, z: df) -> V3 {
  return V3(x, y, z);
}

fn v3_zero() -> V3 {
  return V3(df(0.0, 0.0), df(0.0, 0.0), df(0.0, 0.0));
}

fn v3_add(a: V3, b: V3) -> V3 {
  return V3(df_add(a.x, b.x), df_add(a.y, b.y), df_add(a.z, b.z));
}

fn v3_sub(a: V3, b: V3) -> V3 {
  return V3(df_sub(a.x, b.x), df_sub(a.y, b.y), df_sub(a.z, b.z));
}

fn v3_scale(a: V3, s: df) -> V3 {
  return V3(df_mul(a.x, s), df_mul(a.y, s), df_mul(a.z, s));
}

fn v3_neg(a: V3) -> V3 {
  return V3(-a.x, -a.y, -a.z);
}

fn v3_dot(a: V3, b: V3) -> df {
  return df_add(df_add(df_mul(a.x, b.x), df_mul(a.y, b.y)), df_mul(a.z, b.z));
}

fn v3_cross(a: V3, b: V3) -> V3 {
  return V3(
    df_sub(df_mul(a.y, b.z), df_mul(a.z, b.y)),
    df_sub(df_mul(a.z, b.x), df_mul(a.x, b.z)),
    df_sub(df_mul(a.x, b.y), df_mul(a.y, b.x)),
  );
}

fn v3_norm(a: V3) -> df {
  return df_sqrt(v3_dot(a, a));
}

fn quat_identity() -> Quat {
  return Quat(df(0.0, 0.0), df(0.0, 0.0), df(0.0, 0.0), df(1.0, 0.0));
}

// a ⊗ b
fn quat_mul(a: Quat, b: Quat) -> Quat {
  return Quat(
    df_sub(df_add(df_add(df_mul(a.w, b.x), df_mul(a.x, b.w)), df_mul(a.y, b.z)), df_mul(a.z, b.y)),
    df_add(df_add(df_sub(df_mul(a.w, b.y), df_mul(a.x, b.z)), df_mul(a.y, b.w)), df_mul(a.z, b.x)),
    df_add(df_sub(df_add(df_mul(a.w, b.z), df_mul(a.x, b.y)), df_mul(a.y, b.x)), df_mul(a.z, b.w)),
    df_sub(df_sub(df_sub(df_mul(a.w, b.w), df_mul(a.x, b.x)), df_mul(a.y, b.y)), df_mul(a.z, b.z)),
  );
}

fn quat_conj(q: Quat) -> Quat {
  return Quat(-q.x, -q.y, -q.z, q.w);
}

// R(q)·v: t = 2 q_v × v, v + w t + q_v × t
fn quat_rotate(q: Quat, v: V3) -> V3 {
  let qv = V3(q.x, q.y, q.z);
  let t = v3_scale(v3_cross(qv, v), df(2.0, 0.0));
  return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(qv, t));
}

fn quat_rotate_inv(q: Quat, v: V3) -> V3 {
  return quat_rotate(quat_conj(q), v);
}

// normalized; a zero (or non-finite) quaternion becomes the identity
fn quat_normalize(q: Quat) -> Quat {
  let n2 = df_add(df_add(df_mul(q.x, q.x), df_mul(q.y, q.y)), df_add(df_mul(q.z, q.z), df_mul(q.w, q.w)));
  let n = df_sqrt(n2);
  if (!(n.x > 0.0) || df_nonfinite(n)) {
    return quat_identity();
  }
  return Quat(df_div(q.x, n), df_div(q.y, n), df_div(q.z, n), df_div(q.w, n));
}

// rotation by `angle` about the unit axis (normalized here, like quatFromAxisAngle)
fn quat_from_axis_angle(axis: V3, angle: df) -> Quat {
  var n = v3_norm(axis);
  if (!(n.x > 0.0)) {
    n = df(1.0, 0.0);
  }
  let sc = df_sincos(df_mul_f(angle, 0.5));
  let s = df_div(sc.xy, n);
  return Quat(df_mul(axis.x, s), df_mul(axis.y, s), df_mul(axis.z, s), sc.zw);
}

// exp(h·ω) ⊗ q, normalized (quatIntegrate)
fn quat_integrate(q: Quat, w: V3, h: df) -> Quat {
  let r = v3_scale(w, h);
  let angle = v3_norm(r);
  var dq: Quat;
  if (angle.x < 1e-12) {
    dq = Quat(df_mul_f(r.x, 0.5), df_mul_f(r.y, 0.5), df_mul_f(r.z, 0.5), df(1.0, 0.0));
  } else {
    let sc = df_sincos(df_mul_f(angle, 0.5));
    let s = df_div(sc.xy, angle);
    dq = Quat(df_mul(r.x, s), df_mul(r.y, s), df_mul(r.z, s), sc.zw);
  }
  return quat_normalize(quat_mul(dq, q));
}

// row-major rotation matrix
fn quat_to_mat3(q: Quat) -> array<df, 9> {
  let two = df(2.0, 0.0);
  let one = df(1.0, 0.0);
  let xx = df_mul(q.x, q.x);
  let yy = df_mul(q.y, q.y);
  let zz = df_mul(q.z, q.z);
  let xy = df_mul(q.x, q.y);
  let xz = df_mul(q.x, q.z);
  let yz = df_mul(q.y, q.z);
  let xw = df_mul(q.x, q.w);
  let yw = df_mul(q.y, q.w);
  let zw = df_mul(q.z, q.w);
  return array<df, 9>(
    df_sub(one, df_mul(two, df_add(yy, zz))),
    df_mul(two, df_sub(xy, zw)),
    df_mul(two, df_add(xz, yw)),
    df_mul(two, df_add(xy, zw)),
    df_sub(one, df_mul(two, df_add(xx, zz))),
    df_mul(two, df_sub(yz, xw)),
    df_mul(two, df_sub(xz, yw)),
    df_mul(two, df_add(yz, xw)),
    df_sub(one, df_mul(two, df_add(xx, yy))),
  );
}

// a ∘ b (apply b, then a)
fn xform_mul(a: Xform, b: Xform) -> Xform {
  return Xform(v3_add(a.p, quat_rotate(a.q, b.p)), quat_mul(a.q, b.q));
}

fn xform_inverse(a: Xform) -> Xform {
  let qi = quat_conj(a.q);
  return Xform(v3_neg(quat_rotate(qi, a.p)), qi);
}

fn xform_point(a: Xform, p: V3) -> V3 {
  return v3_add(quat_rotate(a.q, p), a.p);
}

fn xform_identity() -> Xform {
  return Xform(v3_zero(), quat_identity());
}

// 3×3 row-major helpers
fn mat3_mul_vec(m: array<df, 9>, v: V3) -> V3 {
  return V3(
    df_add(df_add(df_mul(m[0], v.x), df_mul(m[1], v.y)), df_mul(m[2], v.z)),
    df_add(df_add(df_mul(m[3], v.x), df_mul(m[4], v.y)), df_mul(m[5], v.z)),
    df_add(df_add(df_mul(m[6], v.x), df_mul(m[7], v.y)), df_mul(m[8], v.z)),
  );
}

fn mat3_tmul_vec(m: array<df, 9>, v: V3) -> V3 {
  return V3(
    df_add(df_add(df_mul(m[0], v.x), df_mul(m[3], v.y)), df_mul(m[6], v.z)),
    df_add(df_add(df_mul(m[1], v.x), df_mul(m[4], v.y)), df_mul(m[7], v.z)),
    df_add(df_add(df_mul(m[2], v.x), df_mul(m[5], v.y)), df_mul(m[8], v.z)),
  );
}

// R·I·Rᵀ
fn rotate_inertia(r: array<df, 9>, inertia: array<df, 9>) -> array<df, 9> {
  var t: array<df, 9>;
  for (var row = 0u; row < 3u; row++) {
    for (var col = 0u; col < 3u; col++) {
      t[row * 3u + col] = df_add(
        df_add(df_mul(r[row * 3u], inertia[col]), df_mul(r[row * 3u + 1u], inertia[3u + col])),
        df_mul(r[row * 3u + 2u], inertia[6u + col]),
      );
    }
  }
  var out: array<df, 9>;
  for (var row = 0u; row < 3u; row++) {
    for (var col = 0u; col < 3u; col++) {
      out[row * 3u + col] = df_add(
        df_add(df_mul(t[row * 3u], r[col * 3u]), df_mul(t[row * 3u + 1u], r[col * 3u + 1u])),
        df_mul(t[row * 3u + 2u], r[col * 3u + 2u]),
      );
    }
  }
  return out;
}
