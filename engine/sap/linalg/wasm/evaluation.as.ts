// AssemblyScript twins of the SAP Newton evaluation in ../../solver.ts (multiplyJ, multiplyA,
// constraintCost, evalAtV, evalAlongLine) and of the constraint kernels in ../../constraints/
// (contactEval, pdEval, limitCalc, holonomicCalc). Compiled into the same module as kernels.as.ts.
//
// Same loops, same operation order, same skipped zero products as the JS code, so every result is
// equal bit for bit (f64 is IEEE binary64 like JS numbers; f64→f32→f64 is Math.fround). A pointer
// 0 stands for "not wanted" (the JS code's null): callers never place an array at byte 0.

// ---------------------------------------------------------------------------------------------
// structure of the problem (byte offsets, set once per solve by setEvaluation)

let eNCon: i32 = 0;
let eNPart: i32 = 0;
let eKind: usize = 0; // per constraint: SapKind (Int32)
let eRows: usize = 0; // per constraint: rows r
let eRowOff: usize = 0; // per constraint: first row
let eGOff: usize = 0; // per constraint: offset of its r×r G block
let eBlkStart: usize = 0; // per constraint (+1): range of its Jacobian blocks
let eBlkClique: usize = 0; // per block: clique
let eBlkJ: usize = 0; // per block: offset of its r×n block in jd
let eRedOff: usize = 0; // per clique: reduced offset (−1 not participating)
let eCliqueOff: usize = 0; // per clique (+1): global dof offset
let eColStart: usize = 0; // per block (+1): range of its nonzero columns
let eColIdx: usize = 0; // nonzero column indices
let ePartCliques: usize = 0; // participating clique ids, ascending
let eAOff: usize = 0; // per participating clique: offset of its row-major A in eA (f64 units)
let eJ: usize = 0; // Jacobian blocks (f64)
let eP: usize = 0; // constraint parameter records (f64, PARAM_STRIDE each)
let eA: usize = 0; // the participating cliques' A matrices (f64)

// per-solve vectors (f64)
let eV: usize = 0; // v over participating dofs
let eVStar: usize = 0; // v*
let eAr: usize = 0; // A(v − v*)
let eMom: usize = 0; // p = A v
let ePStar: usize = 0; // A v* (once per solve: p = A(v − v*) + A v*)
let eJv: usize = 0; // Jᵀγ
let eGrad: usize = 0; // ∇ℓ
let eVc: usize = 0; // J v
let eGamma: usize = 0; // γ
let eG: usize = 0; // G blocks
let eDvc: usize = 0; // J Δv
let eVcT: usize = 0; // vc + α J Δv
let eGammaT: usize = 0; // γ along the line
let eGT: usize = 0; // G along the line
let eDInv: usize = 0; // diag(A)^-1/2
let eRhs: usize = 0; // −∇ℓ
let eDv: usize = 0; // Δv
let eDp: usize = 0; // AΔv
let eOut: usize = 0; // scalar results [ℓ or φ, ℓ_A or φ′, φ″, –] and inputs [α, ℓ_A, Δpᵀ(v − v*), ΔvᵀAΔv]

// constants of the JS kernels
const PARAM_STRIDE = 12;
const SOFT_NORM_EPS: f64 = 1e-7;
const KIND_CONTACT = 0;
const KIND_LIMIT = 1;
const KIND_PD = 2;
const KIND_TENDON = 4; // a tendon's rows are a limit's (unilateral)
const KIND_JOINT_FRICTION = 5; // its parameters are a PD record

/** sets the structure and the vectors the evaluation reads and writes (once per solve) */
/** the counts of {@link setEvaluation} alone (its arrays unchanged since the last call) */
export function setEvaluationCounts(nCon: i32, nPart: i32): void {
  eNCon = nCon;
  eNPart = nPart;
}

export function setEvaluation(
  nCon: i32,
  nPart: i32,
  kind: usize,
  rows: usize,
  rowOff: usize,
  gOff: usize,
  blkStart: usize,
  blkClique: usize,
  blkJ: usize,
  redOff: usize,
  cliqueOff: usize,
  colStart: usize,
  colIdx: usize,
  partCliques: usize,
  aOff: usize,
  jd: usize,
  params: usize,
  A: usize,
): void {
  eNCon = nCon;
  eNPart = nPart;
  eKind = kind;
  eRows = rows;
  eRowOff = rowOff;
  eGOff = gOff;
  eBlkStart = blkStart;
  eBlkClique = blkClique;
  eBlkJ = blkJ;
  eRedOff = redOff;
  eCliqueOff = cliqueOff;
  eColStart = colStart;
  eColIdx = colIdx;
  ePartCliques = partCliques;
  eAOff = aOff;
  eJ = jd;
  eP = params;
  eA = A;
}

/** sets the vectors (byte offsets; all over participating dofs or constraint rows) */
export function setEvaluationVectors(
  v: usize,
  vStar: usize,
  Ar: usize,
  p: usize,
  jv: usize,
  grad: usize,
  vc: usize,
  gamma: usize,
  G: usize,
  dvc: usize,
  vcT: usize,
  gammaT: usize,
  GT: usize,
  dInv: usize,
  rhs: usize,
  dv: usize,
  dp: usize,
  out: usize,
  pStar: usize,
): void {
  ePStar = pStar;
  eV = v;
  eVStar = vStar;
  eAr = Ar;
  eMom = p;
  eJv = jv;
  eGrad = grad;
  eVc = vc;
  eGamma = gamma;
  eG = G;
  eDvc = dvc;
  eVcT = vcT;
  eGammaT = gammaT;
  eGT = GT;
  eDInv = dInv;
  eRhs = rhs;
  eDv = dv;
  eDp = dp;
  eOut = out;
}

function gi(p: usize, i: i32): i32 {
  return load<i32>(p + ((<usize>i) << 2));
}
function gd(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}
function sd(p: usize, i: i32, x: f64): void {
  store<f64>(p + ((<usize>i) << 3), x);
}

// ---------------------------------------------------------------------------------------------
// constraint kernels (cost returned; gamma / G written when their pointer is not 0)

/** contactEval (constraints/contact.ts) */
function contactCost(po: i32, vc: usize, vo: i32, gamma: usize, go: i32, G: usize, Go: i32): f64 {
  const P = eP;
  const mu = gd(P, po);
  const Rt = gd(P, po + 1);
  const Rn = gd(P, po + 2);
  const y0 = -gd(vc, vo) / Rt;
  const y1 = -gd(vc, vo + 1) / Rt;
  const yn = (gd(P, po + 3) - gd(vc, vo + 2)) / Rn;
  const yr = Math.sqrt(y0 * y0 + y1 * y1 + SOFT_NORM_EPS * SOFT_NORM_EPS);

  if (yr <= mu * yn) {
    // stiction
    if (gamma) {
      sd(gamma, go, y0);
      sd(gamma, go + 1, y1);
      sd(gamma, go + 2, yn);
    }
    if (G) {
      const it = 1 / Rt;
      sd(G, Go, it);
      sd(G, Go + 1, 0);
      sd(G, Go + 2, 0);
      sd(G, Go + 3, 0);
      sd(G, Go + 4, it);
      sd(G, Go + 5, 0);
      sd(G, Go + 6, 0);
      sd(G, Go + 7, 0);
      sd(G, Go + 8, 1 / Rn);
    }
    return 0.5 * (Rt * (y0 * y0 + y1 * y1) + Rn * yn * yn);
  }

  const muHat = gd(P, po + 4);
  if (yn > -muHat * yr) {
    // sliding
    const f = gd(P, po + 5);
    const s = yn + muHat * yr;
    const gn = s * f;
    const t0 = y0 / yr;
    const t1 = y1 / yr;
    if (gamma) {
      sd(gamma, go, mu * gn * t0);
      sd(gamma, go + 1, mu * gn * t1);
      sd(gamma, go + 2, gn);
    }
    if (G) {
      const a = (mu * gn) / yr / Rt;
      const b = (mu * muHat * f) / Rt;
      const c = (mu * f) / Rn;
      const g01 = (b - a) * t0 * t1;
      sd(G, Go, a * (1 - t0 * t0) + b * t0 * t0);
      sd(G, Go + 1, g01);
      sd(G, Go + 2, c * t0);
      sd(G, Go + 3, g01);
      sd(G, Go + 4, a * (1 - t1 * t1) + b * t1 * t1);
      sd(G, Go + 5, c * t1);
      sd(G, Go + 6, c * t0);
      sd(G, Go + 7, c * t1);
      sd(G, Go + 8, f / Rn);
    }
    return 0.5 * Rn * s * s * f;
  }

  // no contact
  if (gamma) {
    sd(gamma, go, 0);
    sd(gamma, go + 1, 0);
    sd(gamma, go + 2, 0);
  }
  if (G) for (let k = 0; k < 9; k++) sd(G, Go + k, 0);
  return 0;
}

/** (P[a], P[b]) as the lanes of an f64x2 */
function pairOf(P: usize, a: i32, b: i32): v128 {
  return v128.load64_lane(P + ((<usize>b) << 3), v128.load64_splat(P + ((<usize>a) << 3)), 1);
}

/**
 * the costs of two contacts (parameters at po and pq, velocities at vo and vq) in the lanes of an
 * f64x2: {@link contactCost} without γ and G, each lane its scalar operations (both branches
 * evaluated, the region's cost selected)
 */
function contactCostPair(po: i32, pq: i32, vc: usize, vo: i32, vq: i32): v128 {
  const P = eP;
  const mu = pairOf(P, po, pq);
  const Rt = pairOf(P, po + 1, pq + 1);
  const Rn = pairOf(P, po + 2, pq + 2);
  const y0 = f64x2.div(f64x2.neg(pairOf(vc, vo, vq)), Rt);
  const y1 = f64x2.div(f64x2.neg(pairOf(vc, vo + 1, vq + 1)), Rt);
  const yn = f64x2.div(f64x2.sub(pairOf(P, po + 3, pq + 3), pairOf(vc, vo + 2, vq + 2)), Rn);
  const t2 = f64x2.add(f64x2.mul(y0, y0), f64x2.mul(y1, y1));
  const yr = f64x2.sqrt(f64x2.add(t2, f64x2.splat(SOFT_NORM_EPS * SOFT_NORM_EPS)));
  const half = f64x2.splat(0.5);
  // stiction
  const stick = f64x2.le(yr, f64x2.mul(mu, yn));
  const cStick = f64x2.mul(half, f64x2.add(f64x2.mul(Rt, t2), f64x2.mul(f64x2.mul(Rn, yn), yn)));
  // sliding
  const muHat = pairOf(P, po + 4, pq + 4);
  const slide = f64x2.gt(yn, f64x2.mul(f64x2.neg(muHat), yr));
  const s = f64x2.add(yn, f64x2.mul(muHat, yr));
  const cSlide = f64x2.mul(f64x2.mul(f64x2.mul(f64x2.mul(half, Rn), s), s), pairOf(P, po + 5, pq + 5));
  // no contact: 0
  return v128.bitselect(cStick, v128.and(cSlide, slide), stick);
}

/** pdEval (constraints/pd.ts) */
function pdCost(po: i32, vc: usize, vo: i32, gamma: usize, go: i32, G: usize, Go: i32): f64 {
  const P = eP;
  const dt = gd(P, po);
  const kp = gd(P, po + 1);
  const kd = gd(P, po + 2);
  const e = gd(P, po + 3);
  const v = gd(vc, vo);
  const y = -kp * (gd(P, po + 4) + dt * v - gd(P, po + 5)) - kd * (v - gd(P, po + 6)) + gd(P, po + 7);
  const c = dt * kp + kd;
  let psi: f64;
  let u: f64;
  let g: f64;
  if (y > e) {
    psi = e * (y - 0.5 * e);
    u = e;
    g = 0;
  } else if (y < -e) {
    psi = -e * (y + 0.5 * e);
    u = -e;
    g = 0;
  } else {
    psi = 0.5 * y * y;
    u = y;
    g = dt * c;
  }
  if (gamma) sd(gamma, go, dt * u);
  if (G) sd(G, Go, g);
  return (dt * psi) / c;
}

/** limitCalc (limited = true) and holonomicCalc (limited = false): independent rows (R, v̂) */
function rowsCost(
  po: i32,
  nrows: i32,
  limited: bool,
  vc: usize,
  vo: i32,
  gamma: usize,
  go: i32,
  G: usize,
  Go: i32,
): f64 {
  const P = eP;
  let cost: f64 = 0;
  if (G) for (let k = 0; k < nrows * nrows; k++) sd(G, Go + k, 0);
  for (let r = 0; r < nrows; r++) {
    const R = gd(P, po + 2 * r);
    const y = (gd(P, po + 2 * r + 1) - gd(vc, vo + r)) / R;
    if (!limited || y > 0) {
      cost += 0.5 * R * y * y;
      if (gamma) sd(gamma, go + r, y);
      if (G) sd(G, Go + r * nrows + r, 1 / R);
    } else if (gamma) {
      sd(gamma, go + r, 0);
    }
  }
  return cost;
}

/** start + Σᵢ ℓᵢ(vcᵢ), i ascending, writing γ and G where given (SapSolver.constraintCost) */
function constraintCost(vc: usize, gamma: usize, G: usize, start: f64): f64 {
  const nCon = eNCon;
  const costOnly = gamma == 0 && G == 0;
  let cost = start;
  for (let i = 0; i < nCon; i++) {
    const ro = gi(eRowOff, i);
    const go = gi(eGOff, i);
    const k = gi(eKind, i);
    const po = i * PARAM_STRIDE;
    if (k == KIND_CONTACT && costOnly && i + 1 < nCon && gi(eKind, i + 1) == KIND_CONTACT) {
      // two contacts in the lanes of one f64x2, their costs added in order
      const c = contactCostPair(po, po + PARAM_STRIDE, vc, ro, gi(eRowOff, i + 1));
      cost += f64x2.extract_lane(c, 0);
      cost += f64x2.extract_lane(c, 1);
      i++;
      continue;
    }
    if (k == KIND_CONTACT) cost += contactCost(po, vc, ro, gamma, ro, G, go);
    else if (k == KIND_PD || k == KIND_JOINT_FRICTION) cost += pdCost(po, vc, ro, gamma, ro, G, go);
    else cost += rowsCost(po, gi(eRows, i), k == KIND_LIMIT || k == KIND_TENDON, vc, ro, gamma, ro, G, go);
  }
  return cost;
}

// ---------------------------------------------------------------------------------------------
// products with J and A

/** out = J·x over all constraint rows (SapSolver.multiplyJ) */
export function multiplyJ(x: usize, out: usize): void {
  const jd = eJ;
  const cs = eColStart;
  const ci = eColIdx;
  const nCon = eNCon;
  for (let i = 0; i < nCon; i++) {
    const r = gi(eRows, i);
    const ro = gi(eRowOff, i);
    for (let k = 0; k < r; k++) sd(out, ro + k, 0);
    const b1 = gi(eBlkStart, i + 1);
    for (let b = gi(eBlkStart, i); b < b1; b++) {
      const c = gi(eBlkClique, b);
      const off = gi(eRedOff, c);
      if (off < 0) continue;
      const n = gi(eCliqueOff, c + 1) - gi(eCliqueOff, c);
      const jo = gi(eBlkJ, b);
      const t0 = gi(cs, b);
      const t1 = gi(cs, b + 1);
      if (r == 3) {
        // contact rows fused (each row: the same sum in the same order as one row at a time)
        let s0: f64 = 0;
        let s1: f64 = 0;
        let s2: f64 = 0;
        const j1 = jo + n;
        const j2 = jo + 2 * n;
        for (let t = t0; t < t1; t++) {
          const m = gi(ci, t);
          const xm = gd(x, off + m);
          s0 += gd(jd, jo + m) * xm;
          s1 += gd(jd, j1 + m) * xm;
          s2 += gd(jd, j2 + m) * xm;
        }
        sd(out, ro, gd(out, ro) + s0);
        sd(out, ro + 1, gd(out, ro + 1) + s1);
        sd(out, ro + 2, gd(out, ro + 2) + s2);
        continue;
      }
      if (t1 - t0 == n) {
        for (let k = 0; k < r; k++) {
          let s: f64 = 0;
          const base = jo + k * n;
          for (let m = 0; m < n; m++) s += gd(jd, base + m) * gd(x, off + m);
          sd(out, ro + k, gd(out, ro + k) + s);
        }
        continue;
      }
      for (let k = 0; k < r; k++) {
        let s: f64 = 0;
        const base = jo + k * n;
        for (let t = t0; t < t1; t++) {
          const m = gi(ci, t);
          s += gd(jd, base + m) * gd(x, off + m);
        }
        sd(out, ro + k, gd(out, ro + k) + s);
      }
    }
  }
}

/**
 * out[a] = Σ_m A[m·n + a]·x[m], m ascending from 0, for the n×n row-major `A`: A·x for a
 * symmetric A, read along its rows (eight entries of out in four f64x2 sums, each lane the scalar
 * sum in order). x and out are byte offsets and must not overlap.
 */
function symMatVec(A: usize, n: i32, x: usize, out: usize): void {
  let a = 0;
  for (; a + 7 < n; a += 8) {
    let s0 = f64x2.splat(0);
    let s1 = f64x2.splat(0);
    let s2 = f64x2.splat(0);
    let s3 = f64x2.splat(0);
    for (let m = 0; m < n; m++) {
      const xm = f64x2.splat(gd(x, m));
      const p = A + ((<usize>(m * n + a)) << 3);
      s0 = f64x2.add(s0, f64x2.mul(v128.load(p), xm));
      s1 = f64x2.add(s1, f64x2.mul(v128.load(p, 16), xm));
      s2 = f64x2.add(s2, f64x2.mul(v128.load(p, 32), xm));
      s3 = f64x2.add(s3, f64x2.mul(v128.load(p, 48), xm));
    }
    const o = out + ((<usize>a) << 3);
    v128.store(o, s0);
    v128.store(o, s1, 16);
    v128.store(o, s2, 32);
    v128.store(o, s3, 48);
  }
  for (; a + 1 < n; a += 2) {
    let s0 = f64x2.splat(0);
    for (let m = 0; m < n; m++) {
      s0 = f64x2.add(s0, f64x2.mul(v128.load(A + ((<usize>(m * n + a)) << 3)), f64x2.splat(gd(x, m))));
    }
    v128.store(out + ((<usize>a) << 3), s0);
  }
  if (a < n) {
    let s: f64 = 0;
    for (let m = 0; m < n; m++) s += gd(A, m * n + a) * gd(x, m);
    sd(out, a, s);
  }
}

/** out = A x over the participating cliques (x, out: participating-dof vectors; SapSolver.multiplyA) */
export function multiplyA(x: usize, out: usize): void {
  const nPart = eNPart;
  for (let q = 0; q < nPart; q++) {
    const c = gi(ePartCliques, q);
    const A = eA + ((<usize>gi(eAOff, q)) << 3);
    const n = gi(eCliqueOff, c + 1) - gi(eCliqueOff, c);
    const off = (<usize>gi(eRedOff, c)) << 3;
    symMatVec(A, n, x + off, out + off);
  }
}

/**
 * The start of the dense Newton matrix (SapSolver.assembleH): one participating clique: its A
 * (all n² entries); several: zero, then each clique's lower triangle on the diagonal.
 */
export function initDenseA(H: usize, n: i32): void {
  const nPart = eNPart;
  if (nPart == 1) {
    const A = eA + ((<usize>gi(eAOff, 0)) << 3);
    memory.copy(H, A, (<usize>(n * n)) << 3);
    return;
  }
  memory.fill(H, 0, (<usize>(n * n)) << 3);
  for (let q = 0; q < nPart; q++) {
    const c = gi(ePartCliques, q);
    const A = eA + ((<usize>gi(eAOff, q)) << 3);
    const nc = gi(eCliqueOff, c + 1) - gi(eCliqueOff, c);
    const off = gi(eRedOff, c);
    for (let a = 0; a < nc; a++) {
      for (let m = 0; m <= a; m++) sd(H, (off + a) * n + off + m, gd(A, a * nc + m));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// the cost and its derivatives

/** A v* into pStar, once per solve (SapSolver.prepare) */
export function momentumOfVStar(): void {
  multiplyA(eVStar, ePStar);
}

/**
 * vc, γ, G, Ar, p, j, ∇ℓ at v; out[0] = ℓ(v), out[1] = ½(v − v*)ᵀA(v − v*) (SapSolver.evalAtV;
 * results in memory, not returned: a returned double is a heap allocation on the JS side). `rs`:
 * round γ, j and ∇ℓ to binary32 (contact_solve_precision fp32). `advanced`: vc and Ar already hold
 * v (advanced by {@link stepV}), no products with J and A.
 */
export function evalAtV(np: i32, nRows: i32, rs: bool, advanced: bool): void {
  const v = eV;
  const vs = eVStar;
  const gamma = eGamma;
  if (!advanced) multiplyJ(v, eVc);
  const costC = constraintCost(eVc, gamma, eG, 0);
  if (rs) for (let k = 0; k < nRows; k++) sd(gamma, k, <f64>(<f32>gd(gamma, k)));

  // momentum terms: Ar = A(v − v*), ℓ_A = ½(v − v*)ᵀA(v − v*), p = A v = Ar + A v*
  // (v − v* first into p, the scratch until p is written)
  const Ar = eAr;
  const pv = eMom;
  for (let a = 0; a < np; a++) sd(pv, a, gd(v, a) - gd(vs, a));
  if (!advanced) multiplyA(pv, Ar);
  // (the participating cliques lie one after another over [0, np), in clique order)
  let ell: f64 = 0;
  const ps = ePStar;
  for (let a = 0; a < np; a++) {
    ell += 0.5 * gd(pv, a) * gd(Ar, a);
    sd(pv, a, gd(Ar, a) + gd(ps, a));
  }

  // j = Jᵀγ
  const jv = eJv;
  const jd = eJ;
  const cs = eColStart;
  const ci = eColIdx;
  for (let a = 0; a < np; a++) sd(jv, a, 0);
  const nCon = eNCon;
  for (let i = 0; i < nCon; i++) {
    const r = gi(eRows, i);
    const ro = gi(eRowOff, i);
    const b1 = gi(eBlkStart, i + 1);
    for (let b = gi(eBlkStart, i); b < b1; b++) {
      const c = gi(eBlkClique, b);
      const off = gi(eRedOff, c);
      if (off < 0) continue;
      const n = gi(eCliqueOff, c + 1) - gi(eCliqueOff, c);
      const jo = gi(eBlkJ, b);
      const t0 = gi(cs, b);
      const t1 = gi(cs, b + 1);
      const full = t1 - t0 == n;
      if (r == 3) {
        // a contact's three rows in one pass over the block's columns (each entry: the same
        // additions in the same order as row by row, rows with γ_k = 0 skipped likewise); a block
        // with every column (a free body) two entries per SIMD lane pair
        const g0 = gd(gamma, ro);
        const g1 = gd(gamma, ro + 1);
        const g2 = gd(gamma, ro + 2);
        const z0 = g0 != 0;
        const z1 = g1 != 0;
        const z2 = g2 != 0;
        const j1 = jo + n;
        const j2 = jo + 2 * n;
        let t = t0;
        if (full) {
          const v0 = f64x2.splat(g0);
          const v1 = f64x2.splat(g1);
          const v2 = f64x2.splat(g2);
          for (; t + 1 < t1; t += 2) {
            const m = t - t0;
            const pj = jv + ((<usize>(off + m)) << 3);
            let h = v128.load(pj);
            if (z0) h = f64x2.add(h, f64x2.mul(v128.load(jd + ((<usize>(jo + m)) << 3)), v0));
            if (z1) h = f64x2.add(h, f64x2.mul(v128.load(jd + ((<usize>(j1 + m)) << 3)), v1));
            if (z2) h = f64x2.add(h, f64x2.mul(v128.load(jd + ((<usize>(j2 + m)) << 3)), v2));
            v128.store(pj, h);
          }
        }
        for (; t < t1; t++) {
          const m = gi(ci, t);
          let h = gd(jv, off + m);
          if (z0) h += gd(jd, jo + m) * g0;
          if (z1) h += gd(jd, j1 + m) * g1;
          if (z2) h += gd(jd, j2 + m) * g2;
          sd(jv, off + m, h);
        }
        continue;
      }
      for (let k = 0; k < r; k++) {
        const g = gd(gamma, ro + k);
        if (g == 0) continue;
        const base = jo + k * n;
        if (full) {
          // two entries per SIMD lane pair (each lane: the scalar update)
          const vg = f64x2.splat(g);
          let m = 0;
          for (; m + 1 < n; m += 2) {
            const pj = jv + ((<usize>(off + m)) << 3);
            v128.store(
              pj,
              f64x2.add(v128.load(pj), f64x2.mul(v128.load(jd + ((<usize>(base + m)) << 3)), vg)),
            );
          }
          for (; m < n; m++) sd(jv, off + m, gd(jv, off + m) + gd(jd, base + m) * g);
          continue;
        }
        for (let t = t0; t < t1; t++) {
          const m = gi(ci, t);
          sd(jv, off + m, gd(jv, off + m) + gd(jd, base + m) * g);
        }
      }
    }
  }
  const grad = eGrad;
  if (rs) {
    for (let a = 0; a < np; a++) sd(jv, a, <f64>(<f32>gd(jv, a)));
    for (let a = 0; a < np; a++) sd(grad, a, <f64>(<f32>(gd(Ar, a) - gd(jv, a))));
  } else {
    for (let a = 0; a < np; a++) sd(grad, a, gd(Ar, a) - gd(jv, a));
  }
  sd(eOut, 0, ell + costC);
  sd(eOut, 1, ell);
}

/**
 * out[0] = φ(α) = ℓ(v + αΔv) by the O(n) update (SapSolver.evalAlongLine): the quadratic term from
 * ℓ_A(v), Δpᵀ(v − v*) and ΔvᵀAΔv, the constraints re-evaluated at vc + αJΔv. order ≥ 1 also
 * out[1] = φ′(α), order 2 also out[2] = φ″(α). Inputs in out[4..8): α, ℓ_A(v), Δpᵀ(v − v*), ΔvᵀAΔv
 * (doubles passed through memory, not as arguments: no boxing on the JS side).
 */
export function evalAlongLine(order: i32, nRows: i32): void {
  const alpha = gd(eOut, 4);
  const ellA0 = gd(eOut, 5);
  const dpr = gd(eOut, 6);
  const d2A = gd(eOut, 7);
  const vc = eVc;
  const dvc = eDvc;
  const vcT = eVcT;
  const va = f64x2.splat(alpha);
  let k = 0;
  for (; k + 1 < nRows; k += 2) {
    const o = (<usize>k) << 3;
    v128.store(vcT + o, f64x2.add(v128.load(vc + o), f64x2.mul(va, v128.load(dvc + o))));
  }
  for (; k < nRows; k++) sd(vcT, k, gd(vc, k) + alpha * gd(dvc, k));
  const gT: usize = order >= 1 ? eGammaT : 0;
  const GT: usize = order == 2 ? eGT : 0;
  const phi = constraintCost(vcT, gT, GT, ellA0 + alpha * dpr + 0.5 * alpha * alpha * d2A);
  if (gT) {
    let s: f64 = 0;
    for (let k = 0; k < nRows; k++) s += gd(dvc, k) * gd(gT, k);
    sd(eOut, 1, dpr + alpha * d2A - s);
  }
  if (GT) {
    let s: f64 = 0;
    const nCon = eNCon;
    for (let i = 0; i < nCon; i++) {
      const r = gi(eRows, i);
      const ro = gi(eRowOff, i);
      const go = gi(eGOff, i);
      for (let k = 0; k < r; k++) {
        let gk: f64 = 0;
        for (let l = 0; l < r; l++) gk += gd(GT, go + k * r + l) * gd(dvc, ro + l);
        s += gd(dvc, ro + k) * gk;
      }
    }
    sd(eOut, 2, d2A + s);
  }
  sd(eOut, 0, phi);
}

// ---------------------------------------------------------------------------------------------
// the Newton loop's vector work (SapSolver.residualNorms, directionTerms, stepV)

/** out = [‖D∇ℓ‖², ‖Dp‖², ‖Dj‖², 1 if every ∇ℓ entry is finite else 0]; rhs = −∇ℓ */
export function residualNorms(np: i32): void {
  const d = eDInv;
  const grad = eGrad;
  let finite: f64 = 1;
  for (let a = 0; a < np; a++) {
    const g = gd(grad, a);
    if (!isFinite(g)) finite = 0;
  }
  let res2: f64 = 0;
  let p2: f64 = 0;
  let j2: f64 = 0;
  for (let a = 0; a < np; a++) {
    const da = gd(d, a);
    const g = da * gd(grad, a);
    const pa = da * gd(eMom, a);
    const ja = da * gd(eJv, a);
    res2 += g * g;
    p2 += pa * pa;
    j2 += ja * ja;
    sd(eRhs, a, -gd(grad, a));
  }
  sd(eOut, 0, res2);
  sd(eOut, 1, p2);
  sd(eOut, 2, j2);
  sd(eOut, 3, finite);
}

/** dp = A·dv, dvc = J·dv; out = [ΔvᵀAΔv, Δpᵀ(v − v*), ∇ℓᵀΔv] (dv, dp: the pointers given) */
export function directionTerms(np: i32): void {
  multiplyA(eDv, eDp);
  multiplyJ(eDv, eDvc);
  let d2A: f64 = 0;
  let dpr: f64 = 0;
  let dphi0: f64 = 0;
  for (let a = 0; a < np; a++) {
    const dv = gd(eDv, a);
    const dp = gd(eDp, a);
    d2A += dv * dp;
    dpr += dp * (gd(eV, a) - gd(eVStar, a));
    dphi0 += gd(eGrad, a) * dv;
  }
  sd(eOut, 0, d2A);
  sd(eOut, 1, dpr);
  sd(eOut, 2, dphi0);
}

/**
 * v ← v + α·dv with α = out[4], rounded to binary32 when `rs`; otherwise also vc ← vc + α·dvc and
 * Ar ← Ar + α·dp (SapSolver.stepV)
 */
export function stepV(np: i32, nRows: i32, rs: bool): void {
  const alpha = gd(eOut, 4);
  for (let a = 0; a < np; a++) {
    const x = gd(eV, a) + alpha * gd(eDv, a);
    sd(eV, a, rs ? <f64>(<f32>x) : x);
  }
  if (rs) return;
  for (let k = 0; k < nRows; k++) sd(eVc, k, gd(eVc, k) + alpha * gd(eDvc, k));
  for (let a = 0; a < np; a++) sd(eAr, a, gd(eAr, a) + alpha * gd(eDp, a));
}

/**
 * monotone_decay along the line, in one call (linesearch.ts monotoneDecay over evalAlongLine):
 * α = 1, ½, ¼, … while α ≥ minAlpha and fewer than maxIt evaluations, accepting the first α with
 * φ(α) ≤ threshold. Inputs out[5..8) as for {@link evalAlongLine}; results out[2] = 1 (accepted)
 * or 0, out[3] = that α (or the first one not tried); returns the number of evaluations.
 */
export function monotoneSearch(nRows: i32, threshold: f64, maxIt: i32, minAlpha: f64): i32 {
  let alpha: f64 = 1;
  let it = 0;
  while (alpha >= minAlpha && it < maxIt) {
    sd(eOut, 4, alpha);
    evalAlongLine(0, nRows);
    it++;
    if (gd(eOut, 0) <= threshold) {
      sd(eOut, 2, 1);
      sd(eOut, 3, alpha);
      return it;
    }
    alpha *= 0.5;
  }
  sd(eOut, 2, 0);
  sd(eOut, 3, alpha);
  return it;
}
