// Probe kernel for the df64 library test (engine/backends/webgpu/testing/df64_probe.ts):
// for each input (a.hi, a.lo, b.hi, b.lo) writes, as vec4 (hi, lo, hi, lo) pairs,
//   [0] a + b, a − b   [1] a·b, a/b   [2] √|a|, sin a   [3] two_sum(a.hi, b.hi), two_prod(a.hi, b.hi)
//   [4] cos a, 0

struct ProbeParams {
  one: f32,
  n: u32,
}

@group(0) @binding(0) var<uniform> probe: ProbeParams;
@group(0) @binding(1) var<storage, read> probe_in: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> probe_out: array<vec4<f32>>;

@compute @workgroup_size(64)
fn df64_probe(@builtin(global_invocation_id) gid: vec3<u32>) {
  df_init(probe.one);
  let i = gid.x;
  if (i >= probe.n) {
    return;
  }
  let x = probe_in[i];
  let a = x.xy;
  let b = x.zw;
  probe_out[i * 5u] = vec4<f32>(df_add(a, b), df_sub(a, b));
  probe_out[i * 5u + 1u] = vec4<f32>(df_mul(a, b), df_div(a, b));
  let sc = df_sincos(a);
  probe_out[i * 5u + 2u] = vec4<f32>(df_sqrt(df_abs(a)), sc.xy);
  probe_out[i * 5u + 3u] = vec4<f32>(two_sum(a.x, b.x), two_prod(a.x, b.x));
  probe_out[i * 5u + 4u] = vec4<f32>(sc.zw, 0.0, 0.0);
}
