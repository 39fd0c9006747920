// df64 ("double-single") arithmetic: a value is the unevaluated sum hi + lo of two f32 with
// |lo| <= ulp(hi)/2, stored as vec2<f32>(hi, lo). About 48 significant bits, the f32 exponent range.
//
// Error-free transforms (Dekker 1971, Knuth TAOCP 4.2.2):
//   two_sum(a, b)  = (s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth, no branch);
//   split(a)       = (h, l) with h + l = a, both with <= 12 significant bits (Veltkamp, C = 2^12 + 1);
//   two_prod(a, b) = (p, e) with p = fl(a * b) and p + e = a * b exactly (Dekker, from the splits).
// No fma is used: an implementation that does not fuse would lose the error term.
//
// Guard against value-changing compiler rewrites: WGSL compilers may re-associate or fuse f32
// operations. Every error-free transform multiplies its first rounded result by `df_one`, a private
// variable that each entry point loads from a buffer (value 1.0 at run time, unknown to the
// compiler), so (a + b) - a cannot be simplified to b nor t - (t - a) to a. Products of the 12-bit
// halves are exact, so a fused multiply-add there changes nothing.

alias df = vec2<f32>;

// 1.0 at run time; set by every entry point with df_init() before any df64 arithmetic
var<private> df_one: f32 = 1.0;
var<private> df_one_u: u32 = 1u;

fn df_init(one: f32) {
  df_one = one;
  df_one_u = u32(one);
}

// n, as a value the compiler cannot see: loop bounds written dyn(3u) keep a small loop with a large
// body from being unrolled (shader compilers such as SwiftShader's inline every call, so code size,
// and with it compile time, grows with every unrolled or repeated df64 expression)
fn dyn(n: u32) -> u32 {
  return n * df_one_u;
}

fn two_sum(a: f32, b: f32) -> df {
  let s = (a + b) * df_one;
  let bb = s - a;
  let e = (a - (s - bb)) + (b - bb);
  return df(s, e);
}

// |a| >= |b| (or a == 0)
fn quick_two_sum(a: f32, b: f32) -> df {
  let s = (a + b) * df_one;
  let e = b - (s - a);
  return df(s, e);
}

fn df_split(a: f32) -> df {
  let t = (4097.0 * a) * df_one;
  let h = t - (t - a);
  return df(h, a - h);
}

fn two_prod(a: f32, b: f32) -> df {
  let p = (a * b) * df_one;
  let sa = df_split(a);
  let sb = df_split(b);
  let e = ((sa.x * sb.x - p) + sa.x * sb.y + sa.y * sb.x) + sa.y * sb.y;
  return df(p, e);
}

fn df_f(x: f32) -> df {
  return df(x, 0.0);
}

// nearest f32 of hi + lo
fn df_to_f32(a: df) -> f32 {
  return a.x + a.y;
}

fn df_neg(a: df) -> df {
  return -a;
}

// accurate addition (two two_sums): relative error O(2^-47) even under cancellation
fn df_add(a: df, b: df) -> df {
  let s = two_sum(a.x, b.x);
  let t = two_sum(a.y, b.y);
  var u = quick_two_sum(s.x, s.y + t.x);
  return quick_two_sum(u.x, u.y + t.y);
}

fn df_sub(a: df, b: df) -> df {
  return df_add(a, -b);
}

fn df_mul(a: df, b: df) -> df {
  let p = two_prod(a.x, b.x);
  return quick_two_sum(p.x, p.y + (a.x * b.y + a.y * b.x));
}

fn df_mul_f(a: df, b: f32) -> df {
  let p = two_prod(a.x, b);
  return quick_two_sum(p.x, p.y + a.y * b);
}

fn df_sqr(a: df) -> df {
  return df_mul(a, a);
}

// quotient by long division: each partial quotient comes from the (inexact) f32 division and the
// remainder is formed exactly, so the f32 division's error is corrected by the next term
fn df_div(a: df, b: df) -> df {
  if (b.x == 0.0) {
    return df(a.x / b.x, 0.0);
  }
  let q1 = a.x / b.x;
  var r = df_sub(a, df_mul_f(b, q1));
  let q2 = r.x / b.x;
  r = df_sub(r, df_mul_f(b, q2));
  let q3 = r.x / b.x;
  let q = quick_two_sum(q1, q2);
  return df_add(q, df(q3, 0.0));
}

// square root by two Newton corrections of the f32 root; 0 for a <= 0
fn df_sqrt(a: df) -> df {
  if (a.x <= 0.0) {
    return df(0.0, 0.0);
  }
  let s = sqrt(a.x);
  let r = df_sub(a, two_prod(s, s));
  var x = quick_two_sum(s, r.x / (2.0 * s));
  let r2 = df_sub(a, df_sqr(x));
  return df_add(x, df(r2.x / (2.0 * x.x), 0.0));
}

fn df_abs(a: df) -> df {
  if (a.x < 0.0 || (a.x == 0.0 && a.y < 0.0)) {
    return -a;
  }
  return a;
}

fn df_lt(a: df, b: df) -> bool {
  return a.x < b.x || (a.x == b.x && a.y < b.y);
}

fn df_le(a: df, b: df) -> bool {
  return a.x < b.x || (a.x == b.x && a.y <= b.y);
}

fn df_gt(a: df, b: df) -> bool {
  return df_lt(b, a);
}

fn df_ge(a: df, b: df) -> bool {
  return df_le(b, a);
}

fn df_max(a: df, b: df) -> df {
  if (df_lt(a, b)) {
    return b;
  }
  return a;
}

fn df_min(a: df, b: df) -> df {
  if (df_lt(b, a)) {
    return b;
  }
  return a;
}

// true when a is NaN or ±Inf (bit test: compilers may assume finite floats in comparisons)
fn f32_nonfinite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u;
}

fn df_nonfinite(a: df) -> bool {
  return f32_nonfinite(a.x) || f32_nonfinite(a.y);
}

// sin and cos of a df64 angle: x = k·π/2 + r with |r| <= π/4 (π/2 in three f32 pieces, Cody–Waite),
// then the Taylor polynomials of sin r / r and cos r in r² (df64 coefficients (−1)ⁿ/(2n+1)! and
// (−1)ⁿ/(2n)!, n ≤ 10, truncation < 1e-22) by Horner; returns (sin.hi, sin.lo, cos.hi, cos.lo)
const DF_PIO2_1: f32 = 1.5707963705062866;
const DF_PIO2_2: f32 = -4.3711388286737929e-8;
const DF_PIO2_3: f32 = -1.7151245100058819e-15;
const DF_SIN_C = array<vec2<f32>, 11>(
  vec2<f32>(1.0, 0.0), vec2<f32>(-0.1666666716337204, 4.967053879312289e-09),
  vec2<f32>(0.008333333767950535, -4.34617203337595e-10), vec2<f32>(-0.00019841270113829523, 2.725596874933456e-12),
  vec2<f32>(2.7557318844628753e-06, 3.793571224297229e-14), vec2<f32>(-2.5052107943679403e-08, -4.4176230446483665e-16),
  vec2<f32>(1.6059044372074283e-10, -5.352526511562726e-18), vec2<f32>(-7.647163609812713e-13, -1.2200710471178288e-20),
  vec2<f32>(2.8114573589663704e-15, -1.0462084739763658e-22), vec2<f32>(-8.220635078476521e-18, -1.681478096855898e-25),
  vec2<f32>(1.9572941524685808e-20, -4.612945513820017e-28),
);
const DF_COS_C = array<vec2<f32>, 11>(
  vec2<f32>(1.0, 0.0), vec2<f32>(-0.5, 0.0),
  vec2<f32>(0.0416666679084301, -1.2417634698280722e-09), vec2<f32>(-0.0013888889225199819, 3.3631094437103215e-11),
  vec2<f32>(2.4801587642286904e-05, -3.40699609366682e-13), vec2<f32>(-2.755731998149713e-07, 7.575112209051195e-15),
  vec2<f32>(2.0876755879584152e-09, 1.1082839147459852e-16), vec2<f32>(-1.147074536050896e-11, -2.372207689231238e-19),
  vec2<f32>(4.7794772561329454e-14, 7.62544404448643e-22), vec2<f32>(-1.5619206814541513e-16, -1.5404471465941993e-24),
  vec2<f32>(4.110317590937049e-19, 3.237511732860265e-27),
);

fn df_sincos(x: df) -> vec4<f32> {
  let k = round(x.x * 0.63661977236758134);
  var r = df_sub(x, two_prod(k, DF_PIO2_1));
  r = df_sub(r, two_prod(k, DF_PIO2_2));
  r = df_sub(r, two_prod(k, DF_PIO2_3));
  let r2 = df_sqr(r);
  let sc = DF_SIN_C;
  let cc = DF_COS_C;
  var s = sc[10];
  var c = cc[10];
  for (var n = 9; n >= 0; n = n - 1) {
    s = df_add(df_mul(s, r2), sc[n]);
    c = df_add(df_mul(c, r2), cc[n]);
  }
  s = df_mul(r, s);
  let q = i32(k) & 3;
  if (q == 0) {
    return vec4<f32>(s, c);
  }
  if (q == 1) {
    return vec4<f32>(c, -s);
  }
  if (q == 2) {
    return vec4<f32>(-s, -c);
  }
  return vec4<f32>(-c, s);
}
