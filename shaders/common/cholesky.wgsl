// Dense blocked (tiled) Cholesky LLᵀ in precision P on an n×n row-major matrix stored in data_d at
// element `base` (lower triangle read, factor written over it): the twin of
// engine/sap/linalg/cholesky.ts. Right-looking: per panel of CHOL_TILE columns, factor the diagonal
// tile, solve the tiles below it, then apply the panel's update to the trailing lower triangle tile
// by tile; every entry receives its updates with k ascending, as in the reference.
// Needs a precision prelude (common/prec_*.wgsl) and generated/layout.wgsl.

const CHOL_TILE: u32 = 16u;

fn chol_at(base: u32, i: u32) -> P {
  return p_from(data_d[base + i]);
}

fn chol_put(base: u32, i: u32, v: P) {
  data_d[base + i] = p_to(v);
}

// returns -1 when positive definite, else the index of the first non-positive pivot
fn chol_factor(base: u32, n: u32) -> i32 {
  for (var k0 = 0u; k0 < n; k0 += CHOL_TILE) {
    let k1 = min(k0 + CHOL_TILE, n);
    // diagonal tile
    for (var j = k0; j < k1; j++) {
      var d = chol_at(base, j * n + j);
      for (var k = k0; k < j; k++) {
        let l = chol_at(base, j * n + k);
        d = p_sub(d, p_mul(l, l));
      }
      if (!p_gt0(d)) {
        return i32(j);
      }
      let ljj = p_sqrt(d);
      chol_put(base, j * n + j, ljj);
      for (var i = j + 1u; i < k1; i++) {
        var s = chol_at(base, i * n + j);
        for (var k = k0; k < j; k++) {
          s = p_sub(s, p_mul(chol_at(base, i * n + k), chol_at(base, j * n + k)));
        }
        chol_put(base, i * n + j, p_div(s, ljj));
      }
    }
    // tiles below the diagonal tile
    for (var i = k1; i < n; i++) {
      for (var j = k0; j < k1; j++) {
        var s = chol_at(base, i * n + j);
        for (var k = k0; k < j; k++) {
          s = p_sub(s, p_mul(chol_at(base, i * n + k), chol_at(base, j * n + k)));
        }
        chol_put(base, i * n + j, p_div(s, chol_at(base, j * n + j)));
      }
    }
    // trailing update, tile by tile
    for (var i0 = k1; i0 < n; i0 += CHOL_TILE) {
      let i1 = min(i0 + CHOL_TILE, n);
      for (var j0 = k1; j0 <= i0; j0 += CHOL_TILE) {
        let j1 = min(j0 + CHOL_TILE, n);
        for (var i = i0; i < i1; i++) {
          let jEnd = min(j1, i + 1u);
          for (var j = j0; j < jEnd; j++) {
            var s = chol_at(base, i * n + j);
            for (var k = k0; k < k1; k++) {
              s = p_sub(s, p_mul(chol_at(base, i * n + k), chol_at(base, j * n + k)));
            }
            chol_put(base, i * n + j, s);
          }
        }
      }
    }
  }
  return -1;
}

// solves L Lᵀ x = b in place; b (n entries, precision P) at data_d element `rhs`
fn chol_solve(base: u32, n: u32, rhs: u32) {
  for (var i = 0u; i < n; i++) {
    var s = chol_at(rhs, i);
    for (var k = 0u; k < i; k++) {
      s = p_sub(s, p_mul(chol_at(base, i * n + k), chol_at(rhs, k)));
    }
    chol_put(rhs, i, p_div(s, chol_at(base, i * n + i)));
  }
  for (var ii = 0u; ii < n; ii++) {
    let i = n - 1u - ii;
    var s = chol_at(rhs, i);
    for (var k = i + 1u; k < n; k++) {
      s = p_sub(s, p_mul(chol_at(base, k * n + i), chol_at(rhs, k)));
    }
    chol_put(rhs, i, p_div(s, chol_at(base, i * n + i)));
  }
}
