// Collision for primitive shapes (SPEC §4), the twin of engine/collision (SapCollisionPipeline with
// the default 'explicit' broad phase) for plane, sphere, capsule and box pairs. df64 throughout
// (collision is fp64 on the CPU). Needs df64, spatial, layout.
//
//   collide_pairs   (one invocation per candidate pair): the shapes' world poses from body_X (after
//                   fk_boundary), inflated AABBs, the overlap test, the narrow-phase routine of the
//                   pair (a port of engine/collision/primitives/*), the points sorted by feature id
//                   into the pair's CP_MAX fixed slots (pc_*).
//   collide_compact (one invocation per world): the world's pairs in ascending (shape 0, shape 1)
//                   order, their points in feature order, written to the world's contact slots until
//                   capacity; the rest counted in gc_truncated (the CPU pipeline's order and rule).
//
// The candidate pairs (cpair) are the statically allowed pairs of every world (filter.ts: flags,
// groups, worlds, same body, static–static, parent/child, filter pairs), built once on the host and
// sorted by world, then (lower, higher) shape index; shape 0 is the lower ShapeType (ties: lower
// index), as in pipeline.ts. Routine codes: see engine/backends/webgpu/collision.ts.

const CP_MAX: u32 = 5u;
const ST_PLANE: i32 = 0;
const ST_SPHERE: i32 = 1;
const ST_CAPSULE: i32 = 2;
const ST_BOX: i32 = 3;

const R_PLANE_SPHERE: i32 = 0;
const R_PLANE_CAPSULE: i32 = 1;
const R_PLANE_BOX: i32 = 2;
const R_SPHERE_SPHERE: i32 = 3;
const R_SPHERE_CAPSULE: i32 = 4;
const R_SPHERE_BOX: i32 = 5;
const R_CAPSULE_CAPSULE: i32 = 6;
const R_CAPSULE_BOX: i32 = 7;
const R_BOX_BOX: i32 = 8;

// ---- the two shapes of the pair (slot 0 = shape 0) ----
var<private> G_POS: array<df, 6>;
var<private> G_ROT: array<df, 18>;
var<private> G_SIZE: array<df, 6>;
var<private> G_AABB: array<df, 12>;
var<private> G_UNB: array<bool, 2>;

// ---- the manifold (world frame) ----
var<private> MF_N: array<df, 24>;
var<private> MF_A: array<df, 24>;
var<private> MF_B: array<df, 24>;
var<private> MF_D: array<df, 8>;
var<private> MF_F: array<i32, 8>;
var<private> MF_C: u32;

// deferred sphere–sphere and plane–point contacts: the routines queue them and collide_pairs runs
// each helper from one call site (shader compilers inline every call)
var<private> SJ_A: array<V3, 2>;
var<private> SJ_B: array<V3, 2>;
var<private> SJ_R: array<vec4<f32>, 2>;
var<private> SJ_F: array<i32, 2>;
var<private> SJ_N: u32;
var<private> PJ_C: array<V3, 2>;
var<private> PJ_R: array<df, 2>;
var<private> PJ_F: array<i32, 2>;
var<private> PJ_N: u32;

fn sphere_job(a: V3, ra: df, b: V3, rb: df, feature: i32) {
  SJ_A[SJ_N] = a;
  SJ_B[SJ_N] = b;
  SJ_R[SJ_N] = vec4<f32>(ra, rb);
  SJ_F[SJ_N] = feature;
  SJ_N++;
}

fn plane_job(c: V3, r: df, feature: i32) {
  PJ_C[PJ_N] = c;
  PJ_R[PJ_N] = r;
  PJ_F[PJ_N] = feature;
  PJ_N++;
}

fn dc(x: f32) -> df {
  return df(x, 0.0);
}

fn in_band(d: df, margin: df, gap: df) -> bool {
  return df_le(df_sub(d, margin), gap);
}

fn dclamp(x: df, lo: df, hi: df) -> df {
  if (df_lt(x, lo)) {
    return lo;
  }
  if (df_gt(x, hi)) {
    return hi;
  }
  return x;
}

fn g_pos(s: u32) -> V3 {
  return V3(G_POS[s * 3u], G_POS[s * 3u + 1u], G_POS[s * 3u + 2u]);
}

// column k of shape s's rotation: its local axis k in the world
fn g_axis(s: u32, k: u32) -> V3 {
  return V3(G_ROT[s * 9u + k], G_ROT[s * 9u + 3u + k], G_ROT[s * 9u + 6u + k]);
}

fn add_contact(n: V3, pa: V3, pb: V3, d: df, feature: i32) {
  let i = MF_C;
  if (i >= 8u) {
    return;
  }
  MF_N[i * 3u] = n.x;
  MF_N[i * 3u + 1u] = n.y;
  MF_N[i * 3u + 2u] = n.z;
  MF_A[i * 3u] = pa.x;
  MF_A[i * 3u + 1u] = pa.y;
  MF_A[i * 3u + 2u] = pa.z;
  MF_B[i * 3u] = pb.x;
  MF_B[i * 3u + 1u] = pb.y;
  MF_B[i * 3u + 2u] = pb.z;
  MF_D[i] = d;
  MF_F[i] = feature;
  MF_C = i + 1u;
}

// ---- shape poses and AABBs (geometry.ts) ----

fn load_shape(slot: u32, s: u32) {
  let b = get_shape_body(s);
  let xs = Xform(
    V3(get_shape_X_bs(s, 0u), get_shape_X_bs(s, 1u), get_shape_X_bs(s, 2u)),
    Quat(get_shape_X_bs(s, 3u), get_shape_X_bs(s, 4u), get_shape_X_bs(s, 5u), get_shape_X_bs(s, 6u)),
  );
  var x = xs;
  if (b >= 0) {
    let bu = u32(b);
    let xb = Xform(
      V3(get_body_X(bu, 0u), get_body_X(bu, 1u), get_body_X(bu, 2u)),
      Quat(get_body_X(bu, 3u), get_body_X(bu, 4u), get_body_X(bu, 5u), get_body_X(bu, 6u)),
    );
    x = xform_mul(xb, xs);
  }
  G_POS[slot * 3u] = x.p.x;
  G_POS[slot * 3u + 1u] = x.p.y;
  G_POS[slot * 3u + 2u] = x.p.z;
  let r = quat_to_mat3(x.q);
  for (var k = 0u; k < 9u; k++) {
    G_ROT[slot * 9u + k] = r[k];
  }
  for (var k = 0u; k < dyn(3u); k++) {
    G_SIZE[slot * 3u + k] = get_shape_size(s, k);
  }
  // half extents of the un-inflated AABB
  let o = slot * 9u;
  var e: array<df, 3>;
  G_UNB[slot] = false;
  let t = get_shape_type(s);
  let sx = G_SIZE[slot * 3u];
  let sy = G_SIZE[slot * 3u + 1u];
  let sz = G_SIZE[slot * 3u + 2u];
  for (var i = 0u; i < dyn(3u); i++) {
    let a0 = df_abs(G_ROT[o + i * 3u]);
    let a1 = df_abs(G_ROT[o + i * 3u + 1u]);
    let a2 = df_abs(G_ROT[o + i * 3u + 2u]);
    if (t == ST_SPHERE) {
      e[i] = sx;
    } else if (t == ST_CAPSULE) {
      e[i] = df_add(df_mul(sy, a2), sx);
    } else if (t == ST_BOX) {
      e[i] = df_add(df_add(df_mul(a0, sx), df_mul(a1, sy)), df_mul(a2, sz));
    } else if (t == ST_PLANE && sx.x > 0.0 && sy.x > 0.0) {
      e[i] = df_add(df_mul(a0, sx), df_mul(a1, sy));
    } else {
      G_UNB[slot] = true;
      e[i] = dc(0.0);
    }
  }
  let infl = get_shape_infl(s);
  for (var i = 0u; i < dyn(3u); i++) {
    let p = G_POS[slot * 3u + i];
    G_AABB[slot * 6u + i] = df_sub(df_sub(p, e[i]), infl);
    G_AABB[slot * 6u + 3u + i] = df_add(df_add(p, e[i]), infl);
  }
}

fn aabb_overlap() -> bool {
  if (G_UNB[0] || G_UNB[1]) {
    return true;
  }
  for (var i = 0u; i < dyn(3u); i++) {
    if (df_gt(G_AABB[i], G_AABB[9u + i]) || df_gt(G_AABB[6u + i], G_AABB[3u + i])) {
      return false;
    }
  }
  return true;
}

// ---- shared helpers (primitives/common.ts) ----

fn sphere_sphere_contact(a: V3, ra: df, b: V3, rb: df, margin: df, gap: df, feature: i32) {
  var n = v3_sub(b, a);
  let len = v3_norm(n);
  let d = df_sub(len, df_add(ra, rb));
  if (!in_band(d, margin, gap)) {
    return;
  }
  if (len.x > 0.0) {
    n = V3(df_div(n.x, len), df_div(n.y, len), df_div(n.z, len));
  } else {
    n = V3(dc(0.0), dc(0.0), dc(1.0));
  }
  add_contact(n, v3_add(a, v3_scale(n, ra)), v3_sub(b, v3_scale(n, rb)), d, feature);
}

fn on_plane(p: u32, x: V3) -> bool {
  let hx = G_SIZE[p * 3u];
  let hy = G_SIZE[p * 3u + 1u];
  if (!(hx.x > 0.0 && hy.x > 0.0)) {
    return true;
  }
  let dx = v3_sub(x, g_pos(p));
  let u = v3_dot(g_axis(p, 0u), dx);
  let v = v3_dot(g_axis(p, 1u), dx);
  return df_le(df_abs(u), hx) && df_le(df_abs(v), hy);
}

// plane (slot 0) against a sphere of centre c, radius r
fn plane_point_contact(c: V3, r: df, margin: df, gap: df, feature: i32) {
  let n = g_axis(0u, 2u);
  let dcn = v3_dot(n, v3_sub(c, g_pos(0u)));
  let d = df_sub(dcn, r);
  if (!in_band(d, margin, gap)) {
    return;
  }
  let px = v3_sub(c, v3_scale(n, dcn));
  if (!on_plane(0u, px)) {
    return;
  }
  add_contact(n, px, v3_sub(c, v3_scale(n, r)), d, feature);
}

// ---- primitive routines (shape 0 = A in slot 0, shape 1 = B in slot 1) ----

fn plane_capsule(margin: df, gap: df) {
  let rad = G_SIZE[3];
  let h = G_SIZE[4];
  let u = g_axis(1u, 2u);
  let n = g_axis(0u, 2u);
  let c = g_pos(1u);
  let cu = v3_dot(n, u);
  var low = dc(-1.0);
  var lowF = 0;
  if (!(cu.x >= 0.0)) {
    low = dc(1.0);
    lowF = 1;
  }
  let lh = df_mul(low, h);
  plane_job(v3_add(c, v3_scale(u, lh)), rad, lowF);
  // FEATURE_SIN_TOL = 0.05
  if (df_gt(df_abs(cu), df(0.05000000074505806, -7.450580707946131e-10))) {
    return;
  }
  var e = v3_neg(v3_sub(n, v3_scale(u, cu)));
  let l = v3_norm(e);
  e = V3(df_div(e.x, l), df_div(e.y, l), df_div(e.z, l));
  plane_job(v3_add(v3_sub(c, v3_scale(u, lh)), v3_scale(e, rad)), dc(0.0), 1 - lowF);
}

fn plane_box(margin: df, gap: df) {
  let n = g_axis(0u, 2u);
  let o = g_pos(0u);
  let c = g_pos(1u);
  var cd: array<df, 8>;
  var cp: array<V3, 8>;
  var keep: array<bool, 8>;
  var cnt = 0u;
  for (var k = 0u; k < dyn(8u); k++) {
    var l: array<df, 3>;
    for (var i = 0u; i < dyn(3u); i++) {
      l[i] = G_SIZE[3u + i];
      if ((k & (1u << i)) == 0u) {
        l[i] = df_neg(l[i]);
      }
    }
    let x = V3(
      df_add(df_add(df_add(c.x, df_mul(G_ROT[9], l[0])), df_mul(G_ROT[10], l[1])), df_mul(G_ROT[11], l[2])),
      df_add(df_add(df_add(c.y, df_mul(G_ROT[12], l[0])), df_mul(G_ROT[13], l[1])), df_mul(G_ROT[14], l[2])),
      df_add(df_add(df_add(c.z, df_mul(G_ROT[15], l[0])), df_mul(G_ROT[16], l[1])), df_mul(G_ROT[17], l[2])),
    );
    let d = v3_dot(n, v3_sub(x, o));
    cp[k] = x;
    cd[k] = d;
    let ok = in_band(d, margin, gap) && on_plane(0u, v3_sub(x, v3_scale(n, d)));
    keep[k] = ok;
    if (ok) {
      cnt++;
    }
  }
  // drop the shallowest corners beyond 4 (the largest d; the higher index on ties)
  while (cnt > 4u) {
    var worst = -1;
    for (var k = 0; k < 8; k++) {
      if (keep[k] && (worst < 0 || df_ge(cd[k], cd[worst]))) {
        worst = k;
      }
    }
    keep[worst] = false;
    cnt--;
  }
  for (var k = 0u; k < dyn(8u); k++) {
    if (!keep[k]) {
      continue;
    }
    add_contact(n, v3_sub(cp[k], v3_scale(n, cd[k])), cp[k], cd[k], i32(k));
  }
}

fn sphere_capsule(margin: df, gap: df) {
  let s = g_pos(0u);
  let c = g_pos(1u);
  let u = g_axis(1u, 2u);
  let h = G_SIZE[4];
  let t = dclamp(v3_dot(u, v3_sub(s, c)), df_neg(h), h);
  sphere_job(s, G_SIZE[0], v3_add(c, v3_scale(u, t)), G_SIZE[3], 0);
}

fn sphere_box(margin: df, gap: df) {
  let s = g_pos(0u);
  let rad = G_SIZE[0];
  var he = array<df, 3>(G_SIZE[3], G_SIZE[4], G_SIZE[5]);
  let c = g_pos(1u);
  let w = v3_sub(s, c);
  var p: array<df, 3>;
  var q: array<df, 3>;
  var l: array<df, 3>;
  for (var i = 0u; i < dyn(3u); i++) {
    p[i] = v3_dot(g_axis(1u, i), w);
    q[i] = dclamp(p[i], df_neg(he[i]), he[i]);
    l[i] = df_sub(p[i], q[i]);
  }
  var dcn = v3_norm(V3(l[0], l[1], l[2]));
  if (dcn.x > 0.0) {
    for (var i = 0u; i < dyn(3u); i++) {
      l[i] = df_div(l[i], dcn);
    }
  } else {
    var f: array<df, 3>;
    for (var i = 0u; i < dyn(3u); i++) {
      f[i] = df_sub(he[i], df_abs(p[i]));
      l[i] = dc(0.0);
    }
    var k = 2u;
    if (df_le(f[0], f[1]) && df_le(f[0], f[2])) {
      k = 0u;
    } else if (df_le(f[1], f[2])) {
      k = 1u;
    }
    l[k] = dc(1.0);
    if (p[k].x < 0.0) {
      l[k] = dc(-1.0);
    }
    q[k] = df_mul(l[k], he[k]);
    dcn = df_neg(f[k]);
  }
  let d = df_sub(dcn, rad);
  if (!in_band(d, margin, gap)) {
    return;
  }
  let n = V3(
    df_add(df_add(df_mul(G_ROT[9], l[0]), df_mul(G_ROT[10], l[1])), df_mul(G_ROT[11], l[2])),
    df_add(df_add(df_mul(G_ROT[12], l[0]), df_mul(G_ROT[13], l[1])), df_mul(G_ROT[14], l[2])),
    df_add(df_add(df_mul(G_ROT[15], l[0]), df_mul(G_ROT[16], l[1])), df_mul(G_ROT[17], l[2])),
  );
  let b = V3(
    df_add(df_add(df_add(c.x, df_mul(G_ROT[9], q[0])), df_mul(G_ROT[10], q[1])), df_mul(G_ROT[11], q[2])),
    df_add(df_add(df_add(c.y, df_mul(G_ROT[12], q[0])), df_mul(G_ROT[13], q[1])), df_mul(G_ROT[14], q[2])),
    df_add(df_add(df_add(c.z, df_mul(G_ROT[15], q[0])), df_mul(G_ROT[16], q[1])), df_mul(G_ROT[17], q[2])),
  );
  add_contact(v3_neg(n), v3_sub(s, v3_scale(n, rad)), b, d, 0);
}

fn capsule_capsule(margin: df, gap: df) {
  let a = g_pos(0u);
  let b = g_pos(1u);
  let ua = g_axis(0u, 2u);
  let ub = g_axis(1u, 2u);
  let ra = G_SIZE[0];
  let ha = G_SIZE[1];
  let rb = G_SIZE[3];
  let hb = G_SIZE[4];
  let r = v3_sub(a, b);
  let bb = v3_dot(ua, ub);
  let c = v3_dot(ua, r);
  let f = v3_dot(ub, r);
  let denom = df_sub(dc(1.0), df_mul(bb, bb));
  // PARALLEL_SIN2 = 1e-6
  let par = df_lt(denom, df(9.999999974752427e-7, 2.5247572468697606e-15));
  if (par) {
    let s0 = df_sub(df_neg(c), df_mul(hb, bb));
    let s1 = df_add(df_neg(c), df_mul(hb, bb));
    let lo = df_max(df_neg(ha), df_min(s0, s1));
    let hi = df_min(ha, df_max(s0, s1));
    // 1e-9·(1 + ha + hb)
    let tol = df_mul(df(9.999999717180685e-10, 2.8281930491731106e-17), df_add(df_add(dc(1.0), ha), hb));
    if (df_gt(df_sub(hi, lo), tol)) {
      for (var k = 0; k < 2; k++) {
        var s = lo;
        if (k == 1) {
          s = hi;
        }
        let t = dclamp(df_add(f, df_mul(s, bb)), df_neg(hb), hb);
        sphere_job(v3_add(a, v3_scale(ua, s)), ra, v3_add(b, v3_scale(ub, t)), rb, k);
      }
      return;
    }
  }
  var s = dc(0.0);
  if (!par) {
    s = dclamp(df_div(df_sub(df_mul(bb, f), c), denom), df_neg(ha), ha);
  }
  let t = dclamp(df_add(df_mul(bb, s), f), df_neg(hb), hb);
  s = dclamp(df_sub(df_mul(bb, t), c), df_neg(ha), ha);
  sphere_job(v3_add(a, v3_scale(ua, s)), ra, v3_add(b, v3_scale(ub, t)), rb, 0);
}

// ---- box–box (primitives/box_box.ts), shape 0 = A (lower index), shape 1 = B ----

const BB_EDGE_FEATURE: i32 = 1728;
const BB_CLOSEST_FEATURE: i32 = 1872;

var<private> BB_CEN: array<df, 6>;
var<private> BB_AX: array<df, 18>;
var<private> BB_HE: array<df, 6>;
var<private> BB_DOT: array<df, 9>;
var<private> BB_EN: array<df, 3>;
var<private> BB_POLY: array<df, 96>;
var<private> BB_PID: array<i32, 32>;
var<private> BB_PLAB: array<i32, 32>;
var<private> BB_QUAD: array<df, 12>;
var<private> BB_FR: array<df, 12>;
var<private> BB_FCTX: array<i32, 4>;
var<private> BB_FEXT: array<df, 2>;
var<private> BB_CAND: array<i32, 16>;
var<private> BB_SEL: array<i32, 4>;
var<private> BB_SEG: array<df, 4>;
var<private> BB_REL: array<df, 6>;

fn bb_rel_tol() -> df {
  return df(0.05000000074505806, -7.450580707946131e-10);
}

// BOX_BOX_EDGE_REL_TOL = 0.1
fn bb_edge_rel_tol() -> df {
  return df(0.10000000149011612, -1.4901161415892261e-09);
}

fn bb_abs_tol() -> df {
  return df(9.999999974752427e-7, 2.5247572468697606e-15);
}

fn bb_ax_dot(s: u32, i: u32, v: V3) -> df {
  let o = s * 9u + i * 3u;
  return df_add(df_add(df_mul(BB_AX[o], v.x), df_mul(BB_AX[o + 1u], v.y)), df_mul(BB_AX[o + 2u], v.z));
}

fn bb_load() {
  for (var s = 0u; s < 2u; s++) {
    for (var c = 0u; c < dyn(3u); c++) {
      BB_CEN[s * 3u + c] = G_POS[s * 3u + c];
      BB_HE[s * 3u + c] = G_SIZE[s * 3u + c];
      for (var i = 0u; i < dyn(3u); i++) {
        BB_AX[s * 9u + i * 3u + c] = G_ROT[s * 9u + c * 3u + i];
      }
    }
  }
  for (var i = 0u; i < dyn(3u); i++) {
    for (var j = 0u; j < dyn(3u); j++) {
      BB_DOT[i * 3u + j] = df_add(
        df_add(df_mul(BB_AX[i * 3u], BB_AX[9u + j * 3u]), df_mul(BB_AX[i * 3u + 1u], BB_AX[9u + j * 3u + 1u])),
        df_mul(BB_AX[i * 3u + 2u], BB_AX[9u + j * 3u + 2u]),
      );
    }
  }
}

fn bb_poly(buf: u32, i: u32, c: u32) -> df {
  return BB_POLY[buf * 48u + i * 3u + c];
}

// appends the crossing of edge (i → i2) of buffer src with side plane pl to buffer dst
fn bb_crossing(
  src: u32,
  i: u32,
  i2: u32,
  dp: df,
  dq: df,
  co: u32,
  on_pl: df,
  lab: i32,
  pl: i32,
  dst: u32,
  cnt: u32,
  leaving: i32,
) -> u32 {
  let t = df_div(dp, df_sub(dp, dq));
  for (var c = 0u; c < dyn(3u); c++) {
    let a = bb_poly(src, i, c);
    BB_POLY[dst * 48u + cnt * 3u + c] = df_add(a, df_mul(t, df_sub(bb_poly(src, i2, c), a)));
  }
  BB_POLY[dst * 48u + cnt * 3u + co] = on_pl;
  if (lab < 4) {
    BB_PID[dst * 16u + cnt] = 4 + lab * 4 + pl;
  } else {
    let other = lab - 4;
    var u_pl = other;
    var v_pl = pl;
    if (co == 0u) {
      u_pl = pl;
      v_pl = other;
    }
    BB_PID[dst * 16u + cnt] = 20 + (u_pl & 1) + 2 * (v_pl & 1);
  }
  BB_PLAB[dst * 16u + cnt] = leaving;
  return cnt + 1u;
}

fn bb_clip_face(rf: u32, ia: u32, sgn: f32, scale: df) -> u32 {
  let inc = 1u - rf;
  let ro = rf * 9u;
  let rc = rf * 3u;
  let ic = inc * 3u;
  let ja = (ia + 1u) % 3u;
  let ka = (ia + 2u) % 3u;
  let e1 = BB_HE[rc + ja];
  let e2 = BB_HE[rc + ka];
  let hr = df_mul_f(BB_HE[rc + ia], sgn);
  for (var c = 0u; c < dyn(3u); c++) {
    let nc = df_mul_f(BB_AX[ro + ia * 3u + c], sgn);
    BB_FR[c] = df_add(BB_CEN[rc + c], df_mul(hr, BB_AX[ro + ia * 3u + c]));
    BB_FR[3u + c] = BB_AX[ro + ja * 3u + c];
    BB_FR[6u + c] = BB_AX[ro + ka * 3u + c];
    BB_FR[9u + c] = nc;
  }
  BB_FEXT[0] = e1;
  BB_FEXT[1] = e2;
  let n = V3(BB_FR[9], BB_FR[10], BB_FR[11]);
  let t1 = V3(BB_FR[3], BB_FR[4], BB_FR[5]);
  let t2 = V3(BB_FR[6], BB_FR[7], BB_FR[8]);
  var m = 0u;
  var best = dc(-1.0);
  var cm = dc(0.0);
  for (var k = 0u; k < dyn(3u); k++) {
    let c = bb_ax_dot(inc, k, n);
    if (df_gt(df_abs(c), best)) {
      best = df_abs(c);
      m = k;
      cm = c;
    }
  }
  var sig = 1.0;
  if (cm.x > 0.0) {
    sig = -1.0;
  }
  let pa = (m + 1u) % 3u;
  let qa = (m + 2u) % 3u;
  let hm = df_mul_f(BB_HE[ic + m], sig);
  let io = inc * 9u + m * 3u;
  let dv = V3(
    df_sub(df_add(BB_CEN[ic], df_mul(hm, BB_AX[io])), BB_FR[0]),
    df_sub(df_add(BB_CEN[ic + 1u], df_mul(hm, BB_AX[io + 1u])), BB_FR[1]),
    df_sub(df_add(BB_CEN[ic + 2u], df_mul(hm, BB_AX[io + 2u])), BB_FR[2]),
  );
  let u0 = v3_dot(t1, dv);
  let v0 = v3_dot(t2, dv);
  let w0 = v3_dot(n, dv);
  let hp = BB_HE[ic + pa];
  let hq = BB_HE[ic + qa];
  let pu = df_mul(hp, bb_ax_dot(inc, pa, t1));
  let pv = df_mul(hp, bb_ax_dot(inc, pa, t2));
  let pw = df_mul(hp, bb_ax_dot(inc, pa, n));
  let qu = df_mul(hq, bb_ax_dot(inc, qa, t1));
  let qv = df_mul(hq, bb_ax_dot(inc, qa, t2));
  let qw = df_mul(hq, bb_ax_dot(inc, qa, n));
  // SNAP_TOL = 1e-10
  let snap = df_mul(df(1.000000013351432e-10, -1.3351432311326805e-18), scale);
  for (var k = 0u; k < dyn(4u); k++) {
    var sp = -1.0;
    if (k == 0u || k == 3u) {
      sp = 1.0;
    }
    var sq = -1.0;
    if (k < 2u) {
      sq = 1.0;
    }
    var u = df_add(df_add(u0, df_mul_f(pu, sp)), df_mul_f(qu, sq));
    var v = df_add(df_add(v0, df_mul_f(pv, sp)), df_mul_f(qv, sq));
    let w = df_add(df_add(w0, df_mul_f(pw, sp)), df_mul_f(qw, sq));
    if (df_le(df_abs(df_sub(u, e1)), snap)) {
      u = e1;
    } else if (df_le(df_abs(df_add(u, e1)), snap)) {
      u = df_neg(e1);
    }
    if (df_le(df_abs(df_sub(v, e2)), snap)) {
      v = e2;
    } else if (df_le(df_abs(df_add(v, e2)), snap)) {
      v = df_neg(e2);
    }
    BB_QUAD[k * 3u] = u;
    BB_QUAD[k * 3u + 1u] = v;
    BB_QUAD[k * 3u + 2u] = w;
    BB_POLY[k * 3u] = u;
    BB_POLY[k * 3u + 1u] = v;
    BB_POLY[k * 3u + 2u] = w;
    BB_PID[k] = i32(k);
    BB_PLAB[k] = i32(k);
  }
  BB_FCTX[1] = i32(rf);
  var sgb = 0;
  if (sgn > 0.0) {
    sgb = 1;
  }
  var sib = 0;
  if (sig > 0.0) {
    sib = 1;
  }
  BB_FCTX[2] = ((i32(rf) * 3 + i32(ia)) * 2 + sgb) * 6 + i32(m) * 2 + sib;

  // Sutherland–Hodgman against the 4 side planes
  var src = 0u;
  var cnt_n = 4u;
  for (var pl = 0u; pl < dyn(4u) && cnt_n > 0u; pl++) {
    let co = pl >> 1u;
    var sg = -1.0;
    if ((pl & 1u) == 1u) {
      sg = 1.0;
    }
    var e = e2;
    if (co == 0u) {
      e = e1;
    }
    let dst = 1u - src;
    let sge = df_mul_f(e, sg);
    var cnt = 0u;
    for (var i = 0u; i < cnt_n; i++) {
      var i2 = 0u;
      if (i + 1u < cnt_n) {
        i2 = i + 1u;
      }
      let dp = df_sub(df_mul_f(bb_poly(src, i, co), sg), e);
      let dq = df_sub(df_mul_f(bb_poly(src, i2, co), sg), e);
      let lab = BB_PLAB[src * 16u + i];
      let dp_le = df_le(dp, dc(0.0));
      let dq_gt = df_gt(dq, dc(0.0));
      var cross = false;
      var leaving = lab;
      if (dp_le) {
        for (var c = 0u; c < dyn(3u); c++) {
          BB_POLY[dst * 48u + cnt * 3u + c] = bb_poly(src, i, c);
        }
        BB_PID[dst * 16u + cnt] = BB_PID[src * 16u + i];
        var ql = lab;
        if (dq_gt && dp.x == 0.0 && dp.y == 0.0) {
          ql = 4 + i32(pl);
        }
        BB_PLAB[dst * 16u + cnt] = ql;
        cnt++;
        if (dq_gt && df_lt(dp, dc(0.0))) {
          cross = true;
          leaving = 4 + i32(pl);
        }
      } else if (df_lt(dq, dc(0.0))) {
        cross = true;
      }
      if (cross) {
        cnt = bb_crossing(src, i, i2, dp, dq, co, sge, lab, i32(pl), dst, cnt, leaving);
      }
    }
    cnt_n = cnt;
    src = dst;
  }
  BB_FCTX[0] = i32(src);
  BB_FCTX[3] = i32(cnt_n);
  return cnt_n;
}

fn bb_min_depth() -> df {
  let b = u32(BB_FCTX[0]);
  var m = dc(3.0e38);
  for (var i = 0u; i < u32(BB_FCTX[3]); i++) {
    m = df_min(m, bb_poly(b, i, 2u));
  }
  return m;
}

fn bb_cross2(b: u32, a: u32, p: u32, c: u32) -> df {
  return df_sub(
    df_mul(df_sub(bb_poly(b, p, 0u), bb_poly(b, a, 0u)), df_sub(bb_poly(b, c, 1u), bb_poly(b, a, 1u))),
    df_mul(df_sub(bb_poly(b, p, 1u), bb_poly(b, a, 1u)), df_sub(bb_poly(b, c, 0u), bb_poly(b, a, 0u))),
  );
}

fn bb_reduce(cnt: u32) -> u32 {
  let b = u32(BB_FCTX[0]);
  var i0 = u32(BB_CAND[0]);
  for (var c = 1u; c < cnt; c++) {
    if (df_lt(bb_poly(b, u32(BB_CAND[c]), 2u), bb_poly(b, i0, 2u))) {
      i0 = u32(BB_CAND[c]);
    }
  }
  BB_SEL[0] = i32(i0);
  var i1 = -1;
  var best = dc(0.0);
  for (var c = 0u; c < cnt; c++) {
    let i = u32(BB_CAND[c]);
    let du = df_sub(bb_poly(b, i, 0u), bb_poly(b, i0, 0u));
    let dv = df_sub(bb_poly(b, i, 1u), bb_poly(b, i0, 1u));
    let d2 = df_add(df_mul(du, du), df_mul(dv, dv));
    if (df_gt(d2, best)) {
      best = d2;
      i1 = i32(i);
    }
  }
  if (i1 < 0) {
    return 1u;
  }
  BB_SEL[1] = i1;
  var i2 = -1;
  best = dc(0.0);
  var orient = 0.0;
  for (var c = 0u; c < cnt; c++) {
    let i = u32(BB_CAND[c]);
    let ar = bb_cross2(b, i0, u32(i1), i);
    if (df_gt(df_abs(ar), best)) {
      best = df_abs(ar);
      i2 = i32(i);
      orient = -1.0;
      if (ar.x > 0.0) {
        orient = 1.0;
      }
    }
  }
  if (i2 < 0) {
    return 2u;
  }
  BB_SEL[2] = i2;
  var i3 = -1;
  best = dc(0.0);
  for (var c = 0u; c < cnt; c++) {
    let i = BB_CAND[c];
    if (i == i32(i0) || i == i1 || i == i2) {
      continue;
    }
    let ui = u32(i);
    let g = df_max(
      df_max(df_mul_f(bb_cross2(b, i0, u32(i1), ui), -orient), df_mul_f(bb_cross2(b, u32(i1), u32(i2), ui), -orient)),
      df_mul_f(bb_cross2(b, u32(i2), i0, ui), -orient),
    );
    if (df_gt(g, best)) {
      best = g;
      i3 = i;
    }
  }
  if (i3 < 0) {
    return 3u;
  }
  BB_SEL[3] = i3;
  return 4u;
}

fn bb_emit_face(margin: df, gap: df) -> u32 {
  let b = u32(BB_FCTX[0]);
  let n = u32(BB_FCTX[3]);
  var cnt = 0u;
  for (var i = 0u; i < n; i++) {
    if (in_band(bb_poly(b, i, 2u), margin, gap)) {
      BB_CAND[cnt] = i32(i);
      cnt++;
    }
  }
  if (cnt == 0u) {
    return 0u;
  }
  var k = 0u;
  if (cnt <= 4u) {
    for (var i = 0u; i < cnt; i++) {
      BB_SEL[k] = BB_CAND[i];
      k++;
    }
  } else {
    k = bb_reduce(cnt);
  }
  for (var i = 1u; i < k; i++) {
    let x = BB_SEL[i];
    var j = i;
    for (; j > 0u && BB_PID[b * 16u + u32(BB_SEL[j - 1u])] > BB_PID[b * 16u + u32(x)]; j--) {
      BB_SEL[j] = BB_SEL[j - 1u];
    }
    BB_SEL[j] = x;
  }
  let rf = BB_FCTX[1];
  let base = BB_FCTX[2] * 24;
  let nr = V3(BB_FR[9], BB_FR[10], BB_FR[11]);
  for (var s = 0u; s < k; s++) {
    let i = u32(BB_SEL[s]);
    let u = bb_poly(b, i, 0u);
    let v = bb_poly(b, i, 1u);
    let w = bb_poly(b, i, 2u);
    let r = V3(
      df_add(df_add(BB_FR[0], df_mul(u, BB_FR[3])), df_mul(v, BB_FR[6])),
      df_add(df_add(BB_FR[1], df_mul(u, BB_FR[4])), df_mul(v, BB_FR[7])),
      df_add(df_add(BB_FR[2], df_mul(u, BB_FR[5])), df_mul(v, BB_FR[8])),
    );
    let x = v3_add(r, v3_scale(nr, w));
    if (rf == 0) {
      add_contact(nr, r, x, w, base + BB_PID[b * 16u + i]);
    } else {
      add_contact(v3_neg(nr), x, r, w, base + BB_PID[b * 16u + i]);
    }
  }
  return k;
}

fn bb_support_contact(margin: df, gap: df) {
  var k0 = 0u;
  for (var k = 1u; k < 4u; k++) {
    if (df_lt(BB_QUAD[k * 3u + 2u], BB_QUAD[k0 * 3u + 2u])) {
      k0 = k;
    }
  }
  let u = BB_QUAD[k0 * 3u];
  let v = BB_QUAD[k0 * 3u + 1u];
  let w = BB_QUAD[k0 * 3u + 2u];
  if (!in_band(w, margin, gap)) {
    return;
  }
  let e1 = BB_FEXT[0];
  let e2 = BB_FEXT[1];
  let cu = dclamp(u, df_neg(e1), e1);
  let cv = dclamp(v, df_neg(e2), e2);
  let nr = V3(BB_FR[9], BB_FR[10], BB_FR[11]);
  let r = V3(
    df_add(df_add(BB_FR[0], df_mul(cu, BB_FR[3])), df_mul(cv, BB_FR[6])),
    df_add(df_add(BB_FR[1], df_mul(cu, BB_FR[4])), df_mul(cv, BB_FR[7])),
    df_add(df_add(BB_FR[2], df_mul(cu, BB_FR[5])), df_mul(cv, BB_FR[8])),
  );
  let x = V3(
    df_add(df_add(df_add(BB_FR[0], df_mul(u, BB_FR[3])), df_mul(v, BB_FR[6])), df_mul(w, nr.x)),
    df_add(df_add(df_add(BB_FR[1], df_mul(u, BB_FR[4])), df_mul(v, BB_FR[7])), df_mul(w, nr.y)),
    df_add(df_add(df_add(BB_FR[2], df_mul(u, BB_FR[5])), df_mul(v, BB_FR[8])), df_mul(w, nr.z)),
  );
  let f = BB_FCTX[2] * 24 + i32(k0);
  if (BB_FCTX[1] == 0) {
    add_contact(nr, r, x, w, f);
  } else {
    add_contact(v3_neg(nr), x, r, w, f);
  }
}

fn bb_edge_contact(i: u32, j: u32, interior_only: bool, tol: df, margin: df, gap: df) -> bool {
  let n = V3(BB_EN[0], BB_EN[1], BB_EN[2]);
  var ea = V3(BB_CEN[0], BB_CEN[1], BB_CEN[2]);
  var eb = V3(BB_CEN[3], BB_CEN[4], BB_CEN[5]);
  var edge_a = i32(i) * 4;
  var edge_b = i32(j) * 4;
  for (var r = 1u; r < dyn(3u); r++) {
    let k = (i + r) % 3u;
    var sa = -1.0;
    if (bb_ax_dot(0u, k, n).x >= 0.0) {
      sa = 1.0;
    }
    let hk = df_mul_f(BB_HE[k], sa);
    ea = v3_add(ea, V3(df_mul(hk, BB_AX[k * 3u]), df_mul(hk, BB_AX[k * 3u + 1u]), df_mul(hk, BB_AX[k * 3u + 2u])));
    if (sa > 0.0) {
      edge_a += i32(r);
    }
    let kb = (j + r) % 3u;
    var sb = 1.0;
    if (bb_ax_dot(1u, kb, n).x > 0.0) {
      sb = -1.0;
    }
    let hb = df_mul_f(BB_HE[3u + kb], sb);
    let ob = 9u + kb * 3u;
    eb = v3_add(eb, V3(df_mul(hb, BB_AX[ob]), df_mul(hb, BB_AX[ob + 1u]), df_mul(hb, BB_AX[ob + 2u])));
    if (sb > 0.0) {
      edge_b += i32(r);
    }
  }
  let u = V3(BB_AX[i * 3u], BB_AX[i * 3u + 1u], BB_AX[i * 3u + 2u]);
  let v = V3(BB_AX[9u + j * 3u], BB_AX[9u + j * 3u + 1u], BB_AX[9u + j * 3u + 2u]);
  let ha = BB_HE[i];
  let hb = BB_HE[3u + j];
  let rr = v3_sub(ea, eb);
  let bb = BB_DOT[i * 3u + j];
  let c = v3_dot(u, rr);
  let f = v3_dot(v, rr);
  let denom = df_sub(dc(1.0), df_mul(bb, bb));
  var s = dc(0.0);
  if (denom.x > 0.0) {
    s = df_div(df_sub(df_mul(bb, f), c), denom);
  }
  var t = df_add(df_mul(bb, s), f);
  if (interior_only) {
    if (df_gt(df_abs(s), df_add(ha, tol)) || df_gt(df_abs(t), df_add(hb, tol))) {
      return false;
    }
    s = dclamp(s, df_neg(ha), ha);
    t = dclamp(t, df_neg(hb), hb);
  } else {
    s = dclamp(s, df_neg(ha), ha);
    t = dclamp(df_add(df_mul(bb, s), f), df_neg(hb), hb);
    s = dclamp(df_sub(df_mul(bb, t), c), df_neg(ha), ha);
  }
  let pa = v3_add(ea, v3_scale(u, s));
  let pb = v3_add(eb, v3_scale(v, t));
  let d = v3_dot(n, v3_sub(pb, pa));
  if (in_band(d, margin, gap)) {
    add_contact(n, pa, pb, d, BB_EDGE_FEATURE + edge_a * 12 + edge_b);
  }
  return true;
}

fn point_box_dist2(p: array<df, 3>, e: array<df, 3>) -> df {
  var s = dc(0.0);
  for (var k = 0u; k < dyn(3u); k++) {
    let o = df_sub(df_abs(p[k]), e[k]);
    if (o.x > 0.0) {
      s = df_add(s, df_mul(o, o));
    }
  }
  return s;
}

// segment p0 + t·dir, t ∈ [−h, h], against the box |x_k| ≤ e_k (segment_box.ts); BB_SEG = [t, q]
fn segment_box_closest(p0: array<df, 3>, dir: array<df, 3>, h: df, e: array<df, 3>) -> df {
  var knots: array<df, 8>;
  var n = 0u;
  knots[0] = df_neg(h);
  n = 1u;
  for (var k = 0u; k < dyn(3u); k++) {
    let d = dir[k];
    if (d.x == 0.0 && d.y == 0.0) {
      continue;
    }
    let t0 = df_div(df_sub(df_neg(e[k]), p0[k]), d);
    let t1 = df_div(df_sub(e[k], p0[k]), d);
    if (df_gt(t0, df_neg(h)) && df_lt(t0, h)) {
      knots[n] = t0;
      n++;
    }
    if (df_gt(t1, df_neg(h)) && df_lt(t1, h)) {
      knots[n] = t1;
      n++;
    }
  }
  knots[n] = h;
  n++;
  for (var i = 1u; i < n; i++) {
    let x = knots[i];
    var j = i;
    for (; j > 0u && df_gt(knots[j - 1u], x); j--) {
      knots[j] = knots[j - 1u];
    }
    knots[j] = x;
  }
  // pass 0 evaluates the segment's start (t = −h), pass i ≥ 1 minimises piece i − 1 (one call site)
  var best_t = df_neg(h);
  var best = dc(0.0);
  var q: array<df, 3>;
  for (var it = 0u; it < n && (it == 0u || best.x > 0.0); it++) {
    var t = df_neg(h);
    if (it > 0u) {
      let ta = knots[it - 1u];
      let tb = knots[it];
      if (!df_gt(tb, ta)) {
        continue;
      }
      // on this piece the set of clamped axes is fixed: read it at the midpoint
      let tm = df_mul_f(df_add(ta, tb), 0.5);
      var A = dc(0.0);
      var B = dc(0.0);
      for (var k = 0u; k < dyn(3u); k++) {
        let x = df_add(p0[k], df_mul(tm, dir[k]));
        if (df_gt(x, e[k]) || df_lt(x, df_neg(e[k]))) {
          A = df_add(A, df_mul(dir[k], dir[k]));
          var ek = df_neg(e[k]);
          if (df_gt(x, e[k])) {
            ek = e[k];
          }
          B = df_add(B, df_mul(df_sub(p0[k], ek), dir[k]));
        }
      }
      t = tm;
      if (A.x > 0.0) {
        t = dclamp(df_neg(df_div(B, A)), ta, tb);
      }
    }
    for (var k = 0u; k < dyn(3u); k++) {
      q[k] = df_add(p0[k], df_mul(t, dir[k]));
    }
    let f = point_box_dist2(q, e);
    if (it == 0u || df_lt(f, best)) {
      best = f;
      best_t = t;
    }
  }
  BB_SEG[0] = best_t;
  for (var k = 0u; k < dyn(3u); k++) {
    BB_SEG[1u + k] = dclamp(df_add(p0[k], df_mul(best_t, dir[k])), df_neg(e[k]), e[k]);
  }
  return best;
}

fn bb_dot_col(s: u32, i: u32, m: u32) -> df {
  // axis i of box s in the other box's frame, component m
  if (s == 0u) {
    return BB_DOT[i * 3u + m];
  }
  return BB_DOT[m * 3u + i];
}

// the closest-point search, the one call site of segment_box_closest (shader compilers inline every
// call): box–box's 24 box edges against the other box (bb_closest_contact), or (cap) capsule–box's
// segment against the box (capsule_box); the best in CL_*
var<private> CL_F: df;
var<private> CL_T: df;
var<private> CL_Q: array<df, 3>;
var<private> CL_S: i32;
var<private> CL_I: u32;
var<private> CL_SJ: f32;
var<private> CL_SK: f32;

fn closest_search(cap: bool) {
  if (!cap) {
    for (var s = 0u; s < 2u; s++) {
      let o = 1u - s;
      let dv = V3(
        df_sub(BB_CEN[s * 3u], BB_CEN[o * 3u]),
        df_sub(BB_CEN[s * 3u + 1u], BB_CEN[o * 3u + 1u]),
        df_sub(BB_CEN[s * 3u + 2u], BB_CEN[o * 3u + 2u]),
      );
      for (var m = 0u; m < dyn(3u); m++) {
        BB_REL[s * 3u + m] = bb_ax_dot(o, m, dv);
      }
    }
  }
  var best = dc(3.0e38);
  var bs = -1;
  var n_it = 24u;
  if (cap) {
    n_it = 1u;
  }
  for (var it = 0u; it < dyn(n_it); it++) {
    // box–box: it = (s·3 + i)·4 + e, edge e of box s along its axis i
    let s = it / 12u;
    let i = (it / 4u) % 3u;
    let e = it % 4u;
    var p: array<df, 3>;
    var dir: array<df, 3>;
    var eo: array<df, 3>;
    var h: df;
    var sj = -1.0;
    var sk = -1.0;
    if (cap) {
      p = array<df, 3>(CB_L[0], CB_L[1], CB_L[2]);
      dir = array<df, 3>(CB_L[3], CB_L[4], CB_L[5]);
      eo = array<df, 3>(CB_L[6], CB_L[7], CB_L[8]);
      h = CB_L[9];
    } else {
      let o = 1u - s;
      let j = (i + 1u) % 3u;
      let k = (i + 2u) % 3u;
      let hj = BB_HE[s * 3u + j];
      let hk = BB_HE[s * 3u + k];
      eo = array<df, 3>(BB_HE[o * 3u], BB_HE[o * 3u + 1u], BB_HE[o * 3u + 2u]);
      dir = array<df, 3>(bb_dot_col(s, i, 0u), bb_dot_col(s, i, 1u), bb_dot_col(s, i, 2u));
      h = BB_HE[s * 3u + i];
      if ((e & 1u) == 1u) {
        sj = 1.0;
      }
      if ((e & 2u) == 2u) {
        sk = 1.0;
      }
      for (var m = 0u; m < dyn(3u); m++) {
        p[m] = df_add(
          df_add(BB_REL[s * 3u + m], df_mul(df_mul_f(hj, sj), bb_dot_col(s, j, m))),
          df_mul(df_mul_f(hk, sk), bb_dot_col(s, k, m)),
        );
      }
    }
    let f = segment_box_closest(p, dir, h, eo);
    // CLOSEST_TIE_REL = 1e-9: near-ties keep the first edge
    if (bs < 0 || df_lt(f, df_sub(best, df_mul(df(9.999999717180685e-10, 2.8281930491731106e-17), best)))) {
      best = f;
      bs = i32(s);
      CL_I = i;
      CL_SJ = sj;
      CL_SK = sk;
      CL_T = BB_SEG[0];
      CL_Q = array<df, 3>(BB_SEG[1], BB_SEG[2], BB_SEG[3]);
    }
  }
  CL_F = best;
  CL_S = bs;
}

// box–box's exact closest points, after closest_search(false)
fn bb_closest_contact(margin: df, gap: df) {
  let bs = CL_S;
  let bi = CL_I;
  let bsj = CL_SJ;
  let bsk = CL_SK;
  let bt = CL_T;
  let bq = CL_Q;
  if (bs < 0) {
    return;
  }
  let bsu = u32(bs);
  let o = 1u - bsu;
  let j = (bi + 1u) % 3u;
  let k = (bi + 2u) % 3u;
  let cj = df_mul_f(BB_HE[bsu * 3u + j], bsj);
  let ck = df_mul_f(BB_HE[bsu * 3u + k], bsk);
  let oi = bsu * 9u + bi * 3u;
  let oj = bsu * 9u + j * 3u;
  let ok = bsu * 9u + k * 3u;
  var ex: array<df, 3>;
  var q: array<df, 3>;
  let oo = o * 9u;
  for (var c = 0u; c < dyn(3u); c++) {
    ex[c] = df_add(
      BB_CEN[bsu * 3u + c],
      df_add(df_add(df_mul(bt, BB_AX[oi + c]), df_mul(cj, BB_AX[oj + c])), df_mul(ck, BB_AX[ok + c])),
    );
    q[c] = df_add(
      df_add(df_add(BB_CEN[o * 3u + c], df_mul(bq[0], BB_AX[oo + c])), df_mul(bq[1], BB_AX[oo + 3u + c])),
      df_mul(bq[2], BB_AX[oo + 6u + c]),
    );
  }
  var pa = V3(q[0], q[1], q[2]);
  var pb = V3(ex[0], ex[1], ex[2]);
  if (bs == 0) {
    pa = V3(ex[0], ex[1], ex[2]);
    pb = V3(q[0], q[1], q[2]);
  }
  let dv = v3_sub(pb, pa);
  let d = v3_norm(dv);
  if (!(d.x > 0.0) || !in_band(d, margin, gap)) {
    return;
  }
  var edge = i32(bi) * 4;
  if (bsj > 0.0) {
    edge += 1;
  }
  if (bsk > 0.0) {
    edge += 2;
  }
  add_contact(V3(df_div(dv.x, d), df_div(dv.y, d), df_div(dv.z, d)), pa, pb, d, BB_CLOSEST_FEATURE + bs * 12 + edge);
}

// returns true when the pair ends with the exact closest points (run by collide_pairs)
fn box_box(margin: df, gap: df) -> bool {
  bb_load();
  let tv = V3(df_sub(BB_CEN[3], BB_CEN[0]), df_sub(BB_CEN[4], BB_CEN[1]), df_sub(BB_CEN[5], BB_CEN[2]));
  var scale = dc(0.0);
  for (var k = 0u; k < 6u; k++) {
    scale = df_max(scale, BB_HE[k]);
  }
  // the centre offset in A's frame
  var tA: array<df, 3>;
  for (var k = 0u; k < dyn(3u); k++) {
    tA[k] = bb_ax_dot(0u, k, tv);
  }
  // face axes of A
  var sA = dc(-3.0e38);
  var iA = 0u;
  var gA = 1.0;
  for (var i = 0u; i < dyn(3u); i++) {
    let ta = tA[i];
    let rB = df_add(
      df_add(df_mul(BB_HE[3], df_abs(BB_DOT[i * 3u])), df_mul(BB_HE[4], df_abs(BB_DOT[i * 3u + 1u]))),
      df_mul(BB_HE[5], df_abs(BB_DOT[i * 3u + 2u])),
    );
    let sep = df_sub(df_sub(df_abs(ta), BB_HE[i]), rB);
    if (df_gt(sep, sA)) {
      sA = sep;
      iA = i;
      gA = -1.0;
      if (ta.x >= 0.0) {
        gA = 1.0;
      }
    }
  }
  // face axes of B
  var sB = dc(-3.0e38);
  var iB = 0u;
  var gB = 1.0;
  for (var j = 0u; j < dyn(3u); j++) {
    let tb = bb_ax_dot(1u, j, tv);
    let rA = df_add(
      df_add(df_mul(BB_HE[0], df_abs(BB_DOT[j])), df_mul(BB_HE[1], df_abs(BB_DOT[3u + j]))),
      df_mul(BB_HE[2], df_abs(BB_DOT[6u + j])),
    );
    let sep = df_sub(df_sub(df_abs(tb), BB_HE[3u + j]), rA);
    if (df_gt(sep, sB)) {
      sB = sep;
      iB = j;
      gB = -1.0;
      if (tb.x >= 0.0) {
        gB = 1.0;
      }
    }
  }
  // edge cross axes a_i × b_j in A's frame (b_j = Σ_m R_mj·a_m, R = BB_DOT):
  // a_i × b_j = R_i1j·a_i2 − R_i2j·a_i1, |a_i × b_j|² = R_i1j² + R_i2j², and its dot products with
  // t, b_j1, b_j2 are t_i2·R_i1j − t_i1·R_i2j, R_ij2, −R_ij1 (i1, i2 = i + 1, i + 2 mod 3)
  var sE = dc(-3.0e38);
  var iE = 0u;
  var jE = 0u;
  var gE = 1.0;
  for (var i = 0u; i < dyn(3u); i++) {
    let i1 = (i + 1u) % 3u;
    let i2 = (i + 2u) % 3u;
    for (var j = 0u; j < dyn(3u); j++) {
      let j1 = (j + 1u) % 3u;
      let j2 = (j + 2u) % 3u;
      let r1 = BB_DOT[i1 * 3u + j];
      let r2 = BB_DOT[i2 * 3u + j];
      let l2 = df_add(df_mul(r1, r1), df_mul(r2, r2));
      // BOX_BOX_EDGE_SIN2 = 1e-12
      if (df_lt(l2, df(9.999999960041972e-13, 3.995802577688237e-21))) {
        continue;
      }
      let tl = df_sub(df_mul(tA[i2], r1), df_mul(tA[i1], r2));
      let rA = df_add(df_mul(BB_HE[i1], df_abs(r2)), df_mul(BB_HE[i2], df_abs(r1)));
      let rB = df_add(
        df_mul(BB_HE[3u + j1], df_abs(BB_DOT[i * 3u + j2])),
        df_mul(BB_HE[3u + j2], df_abs(BB_DOT[i * 3u + j1])),
      );
      let sep = df_div(df_sub(df_sub(df_abs(tl), rA), rB), df_sqrt(l2));
      if (df_gt(sep, sE)) {
        sE = sep;
        iE = i;
        jE = j;
        gE = -1.0;
        if (tl.x >= 0.0) {
          gE = 1.0;
        }
      }
    }
  }
  if (sE.x > -3.0e38) {
    // the chosen axis in the world frame, oriented from A into B
    let ao = iE * 3u;
    let bo = 9u + jE * 3u;
    let l = V3(
      df_sub(df_mul(BB_AX[ao + 1u], BB_AX[bo + 2u]), df_mul(BB_AX[ao + 2u], BB_AX[bo + 1u])),
      df_sub(df_mul(BB_AX[ao + 2u], BB_AX[bo]), df_mul(BB_AX[ao], BB_AX[bo + 2u])),
      df_sub(df_mul(BB_AX[ao], BB_AX[bo + 1u]), df_mul(BB_AX[ao + 1u], BB_AX[bo])),
    );
    let inv = df_div(dc(gE), df_sqrt(v3_dot(l, l)));
    BB_EN[0] = df_mul(inv, l.x);
    BB_EN[1] = df_mul(inv, l.y);
    BB_EN[2] = df_mul(inv, l.z);
  }

  let sMax = df_max(df_max(sA, sB), sE);
  let sep = sMax.x > 0.0;
  // EXACT_TOL = 1e-9
  let tol = df_mul(df(9.999999717180685e-10, 2.8281930491731106e-17), scale);
  var edge_mode = 0u;
  if (sep) {
    // separated: D ≥ sMax, so nothing can be inside the band when sMax is not
    if (!in_band(sMax, margin, gap)) {
      return false;
    }
  }
  // overlapping: prefer faces (A's first; an edge axis must beat the face by the wider edge band)
  var rf0 = 0u;
  var sF = sA;
  if (!sep) {
    if (df_gt(sB, df_add(df_add(sA, df_mul(bb_rel_tol(), df_abs(sA))), df_mul(bb_abs_tol(), scale)))) {
      rf0 = 1u;
      sF = sB;
    }
    if (df_gt(sE, df_add(df_add(sF, df_mul(bb_edge_rel_tol(), df_abs(sF))), df_mul(bb_abs_tol(), scale)))) {
      edge_mode = 2u;
    }
  }
  // face manifolds, one clip and one emit call site (shader compilers inline every call):
  // separated: stage 0/1 A's/B's face realising the distance (then done), stage 2/3 A's/B's nearly
  // best face (then the exact closest points); overlapping: stage 0 the preferred face
  let pref = df_add(df_mul(bb_rel_tol(), sMax), df_mul(bb_abs_tol(), scale));
  var emitted = 0u;
  var done = false;
  for (var st = 0u; st < dyn(4u) && edge_mode == 0u; st++) {
    var rf = rf0;
    if (sep) {
      rf = st & 1u;
      var s = sB;
      if (rf == 0u) {
        s = sA;
      }
      var thr = pref;
      if (st < 2u) {
        thr = tol;
      }
      if (!df_ge(s, df_sub(sMax, thr))) {
        continue;
      }
    } else if (st > 0u) {
      break;
    }
    var ia = iB;
    var sgn = -gB;
    var s_ref = sB;
    if (rf == 0u) {
      ia = iA;
      sgn = gA;
      s_ref = sA;
    }
    if (bb_clip_face(rf, ia, sgn, scale) == 0u) {
      continue;
    }
    if (sep && st < 2u && !df_le(bb_min_depth(), df_add(s_ref, tol))) {
      continue;
    }
    emitted = bb_emit_face(margin, gap);
    // separated, stages 0/1: the face manifold realises the distance, nothing else is emitted
    done = sep && st < 2u;
    break;
  }
  if (done) {
    return false;
  }
  if (!sep && edge_mode == 0u) {
    if (emitted > 0u) {
      return false;
    }
    bb_support_contact(margin, gap);
    return false;
  }
  if (sep && df_ge(sE, df_sub(sMax, tol))) {
    edge_mode = 1u;
  }
  if (edge_mode > 0u) {
    var et = dc(0.0);
    if (edge_mode == 1u) {
      et = tol;
    }
    if (bb_edge_contact(iE, jE, edge_mode == 1u, et, margin, gap)) {
      return false;
    }
  }
  return true;
}

// ---- capsule–box (primitives/capsule_box.ts), shape 0 = capsule, shape 1 = box; box frame ----
//
// collide_pairs runs cb_load, then closest_search(true) (the segment's exact closest points), then
// capsule_box; face points and emitted points are queued so each helper has one call site.

// [box-frame segment p₀ (3), direction u (3), box half extents (3), h, r]
var<private> CB_L: array<df, 11>;
// queued face points (face k, outward sign): segment parameter, feature
var<private> CB_FT: array<df, 2>;
var<private> CB_FF: array<i32, 2>;
var<private> CB_FN: u32;
// queued points in the box frame: capsule witness, normal (capsule → box), box witness, d, feature
var<private> CB_EA: array<V3, 2>;
var<private> CB_EN: array<V3, 2>;
var<private> CB_EQ: array<V3, 2>;
var<private> CB_ED: array<df, 2>;
var<private> CB_EF: array<i32, 2>;
var<private> CB_NE: u32;

// CAPSULE_BOX_PARALLEL_SIN = AXIS_REL_TOL = 0.05
fn cb_005() -> df {
  return df(0.05000000074505806, -7.450580707946131e-10);
}

fn cb_load() {
  let w = v3_sub(g_pos(0u), g_pos(1u));
  let u = g_axis(0u, 2u);
  for (var k = 0u; k < dyn(3u); k++) {
    let ax = g_axis(1u, k);
    CB_L[k] = v3_dot(ax, w);
    CB_L[3u + k] = v3_dot(ax, u);
    CB_L[6u + k] = G_SIZE[3u + k];
  }
  CB_L[9] = G_SIZE[1];
  CB_L[10] = G_SIZE[0];
  CB_FN = 0u;
  CB_NE = 0u;
}

fn cb_emit(a: V3, n: V3, q: V3, d: df, feature: i32) {
  CB_EA[CB_NE] = a;
  CB_EN[CB_NE] = n;
  CB_EQ[CB_NE] = q;
  CB_ED[CB_NE] = d;
  CB_EF[CB_NE] = feature;
  CB_NE++;
}

// box-frame vector → world (rotation of slot 1, plus its centre when `point`)
fn cb_world(x: V3, point: bool) -> V3 {
  var r = V3(
    df_add(df_add(df_mul(G_ROT[9], x.x), df_mul(G_ROT[10], x.y)), df_mul(G_ROT[11], x.z)),
    df_add(df_add(df_mul(G_ROT[12], x.x), df_mul(G_ROT[13], x.y)), df_mul(G_ROT[14], x.z)),
    df_add(df_add(df_mul(G_ROT[15], x.x), df_mul(G_ROT[16], x.y)), df_mul(G_ROT[17], x.z)),
  );
  if (point) {
    r = v3_add(g_pos(1u), r);
  }
  return r;
}

// the face contact with the box face on axis k, outward normal sgn·e_k (faceContact): queues the two
// overlap-end points of a nearly parallel segment (true); else with parallel_only nothing (false),
// without it one point at the deeper overlap end, or segment end (true)
fn cb_face_contact(k: u32, sgn: f32, parallel_only: bool) -> bool {
  let h = CB_L[9];
  var lo = df_neg(h);
  var hi = h;
  var empty = false;
  for (var s = 1u; s < dyn(3u); s++) {
    let m = (k + s) % 3u;
    let p = CB_L[m];
    let dm = CB_L[3u + m];
    let e = CB_L[6u + m];
    if (dm.x == 0.0 && dm.y == 0.0) {
      if (df_gt(df_abs(p), e)) {
        empty = true;
      }
      continue;
    }
    let ta = df_div(df_sub(df_neg(e), p), dm);
    let tb = df_div(df_sub(e, p), dm);
    lo = df_max(lo, df_min(ta, tb));
    hi = df_min(hi, df_max(ta, tb));
  }
  let dk = CB_L[3u + k];
  // 1e-9·(1 + h)
  let tol = df_mul(df(9.999999717180685e-10, 2.8281930491731106e-17), df_add(dc(1.0), h));
  if (!empty && df_le(df_abs(dk), cb_005()) && df_gt(df_sub(hi, lo), tol)) {
    CB_FT[0] = lo;
    CB_FF[0] = 0;
    CB_FT[1] = hi;
    CB_FF[1] = 1;
    CB_FN = 2u;
    return true;
  }
  if (parallel_only) {
    return false;
  }
  // the height sgn·p_k(t) − e_k is linear in t: the deeper end of the overlap (or of the segment)
  let low = df_mul_f(dk, sgn).x > 0.0;
  var t = h;
  if (!empty && df_ge(hi, lo)) {
    t = hi;
    if (low) {
      t = lo;
    }
  } else if (low) {
    t = df_neg(h);
  }
  CB_FT[0] = t;
  CB_FF[0] = 1;
  if (t.x <= 0.0) {
    CB_FF[0] = 0;
  }
  CB_FN = 1u;
  return true;
}

// one face point at segment parameter t (facePoint)
fn cb_face_point(k: u32, sgn: f32, t: df, margin: df, gap: df, feature: i32) {
  let h = CB_L[9];
  let r = CB_L[10];
  var n = array<df, 3>(dc(0.0), dc(0.0), dc(0.0));
  n[k] = dc(-sgn);
  let u = V3(CB_L[3], CB_L[4], CB_L[5]);
  let nu = df_mul_f(CB_L[3u + k], -sgn);
  var w = V3(n[0], n[1], n[2]);
  let on_cap = (h.x == 0.0) || (df_le(t, df_neg(h)) && nu.x <= 0.0) || (df_ge(t, h) && nu.x >= 0.0);
  if (!on_cap) {
    let pp = v3_sub(w, v3_scale(u, nu));
    let pl = v3_norm(pp);
    // 1e-12
    if (df_gt(pl, df(9.999999960041972e-13, 3.995802577688237e-21))) {
      w = V3(df_div(pp.x, pl), df_div(pp.y, pl), df_div(pp.z, pl));
    }
  }
  var a: array<df, 3>;
  a[0] = df_add(df_add(CB_L[0], df_mul(t, u.x)), df_mul(r, w.x));
  a[1] = df_add(df_add(CB_L[1], df_mul(t, u.y)), df_mul(r, w.y));
  a[2] = df_add(df_add(CB_L[2], df_mul(t, u.z)), df_mul(r, w.z));
  let ek = CB_L[6u + k];
  let d = df_sub(df_mul_f(a[k], sgn), ek);
  if (!in_band(d, margin, gap)) {
    return;
  }
  var q: array<df, 3>;
  for (var m = 0u; m < dyn(3u); m++) {
    q[m] = dclamp(a[m], df_neg(CB_L[6u + m]), CB_L[6u + m]);
  }
  q[k] = df_mul_f(ek, sgn);
  cb_emit(V3(a[0], a[1], a[2]), V3(n[0], n[1], n[2]), V3(q[0], q[1], q[2]), d, feature);
}

// after cb_load and closest_search(true)
fn capsule_box(margin: df, gap: df) {
  let h = CB_L[9];
  let r = CB_L[10];
  let p0 = V3(CB_L[0], CB_L[1], CB_L[2]);
  let u = V3(CB_L[3], CB_L[4], CB_L[5]);
  let ex = CB_L[6];
  let ey = CB_L[7];
  let ez = CB_L[8];
  let f = CL_F;
  var fk = -1;
  var fsgn = 1.0;
  let separated = f.x > 0.0;
  // separated: the closest-point contact, unless the face contact takes over
  var sa = p0;
  var sn = u;
  var sq = p0;
  var sd = dc(0.0);
  var sf = 0;
  if (separated) {
    let D = df_sqrt(f);
    if (!in_band(df_sub(D, r), margin, gap)) {
      return;
    }
    let t = CL_T;
    let p = v3_add(p0, v3_scale(u, t));
    let q = V3(CL_Q[0], CL_Q[1], CL_Q[2]);
    // a face region (exactly one clamped axis) may need the two-point parallel contact
    let ox = !(p.x.x == q.x.x && p.x.y == q.x.y);
    let oy = !(p.y.x == q.y.x && p.y.y == q.y.y);
    let oz = !(p.z.x == q.z.x && p.z.y == q.z.y);
    if (select(0, 1, ox) + select(0, 1, oy) + select(0, 1, oz) == 1) {
      var pk = p.z;
      fk = 2;
      if (ox) {
        pk = p.x;
        fk = 0;
      } else if (oy) {
        pk = p.y;
        fk = 1;
      }
      fsgn = -1.0;
      if (pk.x > 0.0) {
        fsgn = 1.0;
      }
    }
    sn = V3(df_div(df_sub(q.x, p.x), D), df_div(df_sub(q.y, p.y), D), df_div(df_sub(q.z, p.z), D));
    sa = v3_add(p, v3_scale(sn, r));
    sq = q;
    sd = df_sub(D, r);
    if (t.x > 0.0) {
      sf = 1;
    }
  } else {
    // the segment meets the box: minimum-penetration axis
    let scale = df_max(df_max(df_max(ex, ey), ez), df_add(h, r));
    var sF = dc(0.0);
    var kF = 0u;
    var nF = 1.0;
    for (var k = 0u; k < dyn(3u); k++) {
      let p = CB_L[k];
      let hd = df_mul(h, df_abs(CB_L[3u + k]));
      let e = CB_L[6u + k];
      let lo = df_sub(df_neg(e), df_add(p, hd));
      let hi = df_sub(df_sub(p, hd), e);
      let sep = df_max(lo, hi);
      if (k == 0u || df_gt(sep, sF)) {
        sF = sep;
        kF = k;
        nF = -1.0;
        if (df_ge(lo, hi)) {
          nF = 1.0;
        }
      }
    }
    var sE = dc(0.0);
    var found = false;
    var kE = 0u;
    var en = V3(dc(0.0), dc(0.0), dc(0.0));
    for (var k = 0u; k < dyn(3u); k++) {
      // u × e_k
      var l = V3(dc(0.0), u.z, df_neg(u.y));
      if (k == 1u) {
        l = V3(df_neg(u.z), dc(0.0), u.x);
      } else if (k == 2u) {
        l = V3(u.y, df_neg(u.x), dc(0.0));
      }
      let l2 = v3_dot(l, l);
      // EDGE_SIN2 = 1e-12
      if (df_lt(l2, df(9.999999960041972e-13, 3.995802577688237e-21))) {
        continue;
      }
      let inv = df_div(dc(1.0), df_sqrt(l2));
      l = v3_scale(l, inv);
      let boxR = df_add(df_add(df_mul(ex, df_abs(l.x)), df_mul(ey, df_abs(l.y))), df_mul(ez, df_abs(l.z)));
      let pl = v3_dot(p0, l);
      let lo = df_sub(df_neg(boxR), pl);
      let hi = df_sub(pl, boxR);
      let sep = df_max(lo, hi);
      if (!found || df_gt(sep, sE)) {
        found = true;
        sE = sep;
        kE = k;
        var sg = -1.0;
        if (df_ge(lo, hi)) {
          sg = 1.0;
        }
        en = V3(df_mul_f(l.x, sg), df_mul_f(l.y, sg), df_mul_f(l.z, sg));
      }
    }
    // AXIS_REL_TOL = 0.05, AXIS_ABS_TOL = 1e-6
    let pref = df_add(
      df_add(sF, df_mul(cb_005(), df_abs(sF))),
      df_mul(df(9.999999974752427e-7, 2.5247572468697606e-15), scale),
    );
    if (!found || !df_gt(sE, pref)) {
      fk = i32(kF);
      fsgn = -nF;
    } else {
      // the box edge along e_kE supporting −n, against the segment
      var c = array<df, 3>(dc(0.0), dc(0.0), dc(0.0));
      var enr = array<df, 3>(en.x, en.y, en.z);
      for (var m = 0u; m < dyn(3u); m++) {
        if (m != kE) {
          c[m] = CB_L[6u + m];
          if (enr[m].x > 0.0) {
            c[m] = df_neg(c[m]);
          }
        }
      }
      let ek = CB_L[6u + kE];
      let rr = v3_sub(p0, V3(c[0], c[1], c[2]));
      var rra = array<df, 3>(rr.x, rr.y, rr.z);
      let bb = CB_L[3u + kE];
      let cc = v3_dot(u, rr);
      let fe = rra[kE];
      let denom = df_sub(dc(1.0), df_mul(bb, bb));
      var s = dc(0.0);
      if (denom.x > 0.0) {
        s = df_div(df_sub(df_mul(bb, fe), cc), denom);
      }
      s = dclamp(s, df_neg(h), h);
      let t = dclamp(df_add(df_mul(bb, s), fe), df_neg(ek), ek);
      s = dclamp(df_sub(df_mul(bb, t), cc), df_neg(h), h);
      let p = v3_add(p0, v3_scale(u, s));
      var q = c;
      q[kE] = t;
      let qv = V3(q[0], q[1], q[2]);
      let d = df_sub(v3_dot(en, v3_sub(qv, p)), r);
      if (in_band(d, margin, gap)) {
        var feat = 0;
        if (s.x > 0.0) {
          feat = 1;
        }
        cb_emit(v3_add(p, v3_scale(en, r)), en, qv, d, feat);
      }
    }
  }
  var face = false;
  if (fk >= 0) {
    face = cb_face_contact(u32(fk), fsgn, separated);
  }
  if (separated && !face) {
    cb_emit(sa, sn, sq, sd, sf);
  }
  for (var j = 0u; j < CB_FN; j++) {
    cb_face_point(u32(fk), fsgn, CB_FT[j], margin, gap, CB_FF[j]);
  }
  // to the world frame: normal, capsule witness, box witness (one cb_world call site)
  for (var j = 0u; j < CB_NE; j++) {
    var x: array<V3, 3>;
    for (var v = 0u; v < dyn(3u); v++) {
      var y = CB_EN[j];
      if (v == 1u) {
        y = CB_EA[j];
      } else if (v == 2u) {
        y = CB_EQ[j];
      }
      x[v] = cb_world(y, v > 0u);
    }
    add_contact(x[0], x[1], x[2], CB_ED[j], CB_EF[j]);
  }
}

// ---- entry points ----

@compute @workgroup_size(64)
fn collide_pairs(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let p = gid.x;
  if (p >= u32(get_world_cpair_start(L.num_worlds))) {
    return;
  }
  let s0 = u32(get_cpair(p, 0u));
  let s1 = u32(get_cpair(p, 1u));
  let routine = get_cpair(p, 3u);
  for (var k = 0u; k < dyn(2u); k++) {
    var s = s0;
    if (k == 1u) {
      s = s1;
    }
    load_shape(k, s);
  }
  MF_C = 0u;
  SJ_N = 0u;
  PJ_N = 0u;
  var seg = 0u;
  if (aabb_overlap()) {
    let margin = get_cpair_d(p, 2u);
    let gap = get_cpair_d(p, 3u);
    if (routine == R_PLANE_SPHERE) {
      plane_job(g_pos(1u), G_SIZE[3], 0);
    } else if (routine == R_PLANE_CAPSULE) {
      plane_capsule(margin, gap);
    } else if (routine == R_PLANE_BOX) {
      plane_box(margin, gap);
    } else if (routine == R_SPHERE_SPHERE) {
      sphere_job(g_pos(0u), G_SIZE[0], g_pos(1u), G_SIZE[3], 0);
    } else if (routine == R_SPHERE_CAPSULE) {
      sphere_capsule(margin, gap);
    } else if (routine == R_SPHERE_BOX) {
      sphere_box(margin, gap);
    } else if (routine == R_CAPSULE_CAPSULE) {
      capsule_capsule(margin, gap);
    } else if (routine == R_CAPSULE_BOX) {
      cb_load();
      seg = 1u;
    } else if (routine == R_BOX_BOX) {
      if (box_box(margin, gap)) {
        seg = 2u;
      }
    }
    // the exact segment–box closest points (one call site), then what the routine does with them
    if (seg > 0u) {
      closest_search(seg == 1u);
      if (seg == 1u) {
        capsule_box(margin, gap);
      } else {
        bb_closest_contact(margin, gap);
      }
    }
    for (var j = 0u; j < PJ_N; j++) {
      plane_point_contact(PJ_C[j], PJ_R[j], margin, gap, PJ_F[j]);
    }
    for (var j = 0u; j < SJ_N; j++) {
      sphere_sphere_contact(SJ_A[j], SJ_R[j].xy, SJ_B[j], SJ_R[j].zw, margin, gap, SJ_F[j]);
    }
  }
  // sort by feature id (insertion sort, stable) and write the pair's fixed slots
  var ord: array<u32, 8>;
  for (var i = 0u; i < MF_C; i++) {
    ord[i] = i;
  }
  for (var i = 1u; i < MF_C; i++) {
    let x = ord[i];
    var j = i;
    for (; j > 0u && MF_F[ord[j - 1u]] > MF_F[x]; j--) {
      ord[j] = ord[j - 1u];
    }
    ord[j] = x;
  }
  let cnt = min(MF_C, CP_MAX);
  set_pc_count(p, i32(cnt));
  for (var i = 0u; i < cnt; i++) {
    let o = ord[i];
    let k = p * CP_MAX + i;
    for (var c = 0u; c < dyn(3u); c++) {
      set_pc_normal(k, c, MF_N[o * 3u + c]);
      set_pc_pa(k, c, MF_A[o * 3u + c]);
      set_pc_pb(k, c, MF_B[o * 3u + c]);
    }
    set_pc_dist(k, MF_D[o]);
    set_pc_feature(k, MF_F[o]);
  }
}

fn body_point(b: i32, x: V3) -> V3 {
  if (b < 0) {
    return x;
  }
  let bu = u32(b);
  let t = V3(get_body_X(bu, 0u), get_body_X(bu, 1u), get_body_X(bu, 2u));
  let q = Quat(get_body_X(bu, 3u), get_body_X(bu, 4u), get_body_X(bu, 5u), get_body_X(bu, 6u));
  return quat_rotate_inv(q, v3_sub(x, t));
}

@compute @workgroup_size(64)
fn collide_compact(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(L.one);
  let w = gid.x;
  if (w >= L.num_worlds) {
    return;
  }
  let cap = L.capacity;
  var n = 0u;
  var trunc = 0;
  let p0 = u32(get_world_cpair_start(w));
  let p1 = u32(get_world_cpair_start(w + 1u));
  for (var p = p0; p < p1; p++) {
    let c = u32(get_pc_count(p));
    if (c == 0u) {
      continue;
    }
    let s0 = get_cpair(p, 0u);
    let s1 = get_cpair(p, 1u);
    let b0 = get_shape_body(u32(s0));
    let b1 = get_shape_body(u32(s1));
    let m0 = get_cpair_d(p, 0u);
    let m1 = get_cpair_d(p, 1u);
    for (var i = 0u; i < c; i++) {
      if (n >= cap) {
        trunc++;
        continue;
      }
      let k = w * cap + n;
      let src = p * CP_MAX + i;
      n++;
      set_gc_shape(k, 0u, s0);
      set_gc_shape(k, 1u, s1);
      set_gc_body0(k, b0);
      set_gc_body1(k, b1);
      set_gc_feature(k, get_pc_feature(src));
      let pa = body_point(b0, V3(get_pc_pa(src, 0u), get_pc_pa(src, 1u), get_pc_pa(src, 2u)));
      let pb = body_point(b1, V3(get_pc_pb(src, 0u), get_pc_pb(src, 1u), get_pc_pb(src, 2u)));
      set_gc_point0(k, 0u, pa.x);
      set_gc_point0(k, 1u, pa.y);
      set_gc_point0(k, 2u, pa.z);
      set_gc_point1(k, 0u, pb.x);
      set_gc_point1(k, 1u, pb.y);
      set_gc_point1(k, 2u, pb.z);
      for (var d = 0u; d < dyn(3u); d++) {
        set_gc_normal(k, d, get_pc_normal(src, d));
      }
      set_gc_phi0(k, df_sub(df_sub(get_pc_dist(src), m0), m1));
      set_gc_inv_ke(k, get_cpair_d(p, 4u));
      set_gc_tau(k, get_cpair_d(p, 5u));
      set_gc_mu(k, get_cpair_d(p, 6u));
      set_gc_alpha0(k, get_cpair_d(p, 7u));
    }
  }
  set_gc_count(w, i32(n));
  set_gc_truncated(w, trunc);
}
