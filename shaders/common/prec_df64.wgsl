// precision prelude P = df64: an fp64 precision knob realized in double-single arithmetic
// ("fp64 (df64)", SPEC §3.7). Needs common/df64.wgsl.

alias P = df;

fn p_from(x: df) -> P {
  return x;
}

fn p_to(x: P) -> df {
  return x;
}

fn p_zero() -> P {
  return df(0.0, 0.0);
}

fn p_add(a: P, b: P) -> P {
  return df_add(a, b);
}

fn p_sub(a: P, b: P) -> P {
  return df_sub(a, b);
}

fn p_mul(a: P, b: P) -> P {
  return df_mul(a, b);
}

fn p_div(a: P, b: P) -> P {
  return df_div(a, b);
}

fn p_sqrt(a: P) -> P {
  return df_sqrt(a);
}

fn p_gt0(a: P) -> bool {
  return a.x > 0.0 && !df_nonfinite(a);
}
