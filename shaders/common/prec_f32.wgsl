// precision prelude P = f32: an fp32 precision knob realized natively (SPEC §3.7). Values of P
// live in df64 storage as (x, 0). Needs common/df64.wgsl.

alias P = f32;

fn p_from(x: df) -> P {
  return df_to_f32(x);
}

fn p_to(x: P) -> df {
  return df(x, 0.0);
}

fn p_zero() -> P {
  return 0.0;
}

fn p_add(a: P, b: P) -> P {
  return a + b;
}

fn p_sub(a: P, b: P) -> P {
  return a - b;
}

fn p_mul(a: P, b: P) -> P {
  return a * b;
}

fn p_div(a: P, b: P) -> P {
  return a / b;
}

fn p_sqrt(a: P) -> P {
  return sqrt(a);
}

fn p_gt0(a: P) -> bool {
  return a > 0.0 && !f32_nonfinite(a);
}
