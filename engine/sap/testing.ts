/**
 * Deterministic fixtures for the SAP tests: a seeded RNG, random SPD matrices and small
 * hand-built problems. Not used by the solver itself.
 */

import type { SapConstraintSpec, SapProblem } from './problem';

/** mulberry32: deterministic uniform numbers in [0, 1) from a 32-bit seed */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** uniform number in [lo, hi) */
export function uniform(rng: () => number, lo: number, hi: number): number {
  return lo + (hi - lo) * rng();
}

/** random n×n row-major SPD matrix B·Bᵀ + shift·I with B entries in [−1, 1) */
export function randomSpd(n: number, rng: () => number, shift = n): Float64Array {
  const B = new Float64Array(n * n);
  for (let k = 0; k < n * n; k++) B[k] = uniform(rng, -1, 1);
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += B[i * n + k] * B[j * n + k];
      if (i === j) s += shift;
      A[i * n + j] = s;
      A[j * n + i] = s;
    }
  }
  return A;
}

/** rotation matrix (row-major 3×3) about a unit axis by angle [rad] */
export function rotation(axis: [number, number, number], angle: number): Float64Array {
  const [x, y, z] = axis;
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const t = 1 - c;
  return Float64Array.from([
    t * x * x + c,
    t * x * y - s * z,
    t * x * z + s * y,
    t * x * y + s * z,
    t * y * y + c,
    t * y * z - s * x,
    t * x * z - s * y,
    t * y * z + s * x,
    t * z * z + c,
  ]);
}

/** diagonal n×n matrix */
export function diag(values: number[]): Float64Array {
  const n = values.length;
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) A[i * n + i] = values[i];
  return A;
}

const GRAVITY = 9.81;

/** a particle of mass m on the plane z = 0, sliding or sticking (one contact, rows (x, y, z)) */
export function pointOnPlane(
  opts: { m?: number; dt?: number; vx?: number; mu?: number; phi0?: number } = {},
): SapProblem {
  const m = opts.m ?? 1;
  const dt = opts.dt ?? 0.01;
  return {
    dt,
    cliques: [{ nv: 3, A: diag([m, m, m]) }],
    v_star: Float64Array.from([opts.vx ?? 0.05, 0.02, -GRAVITY * dt]),
    constraints: [
      {
        kind: 'contact',
        cliques: [0],
        J: [diag([1, 1, 1])],
        mu: opts.mu ?? 0.5,
        stiffness: 1e5,
        tau_d: 0.01,
        phi0: opts.phi0 ?? -1e-3,
      },
    ],
  };
}

/**
 * A box-like rigid body (6 dofs: linear then angular velocity, world frame) resting on four
 * corner contacts with the plane z = 0, with a full rotated inertia.
 */
export function boxOnPlane(opts: { dt?: number; mu?: number; spin?: number } = {}): SapProblem {
  const dt = opts.dt ?? 0.01;
  const m = 2;
  const R = rotation([0.48, 0.6, 0.64], 0.4);
  const Ib = [0.05, 0.08, 0.1];
  const A = new Float64Array(36);
  for (let i = 0; i < 3; i++) A[i * 6 + i] = m;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += R[i * 3 + k] * Ib[k] * R[j * 3 + k];
      A[(3 + i) * 6 + 3 + j] = s;
    }
  }
  const constraints: SapConstraintSpec[] = [];
  const h = 0.1;
  const corners: [number, number][] = [
    [0.2, 0.15],
    [-0.2, 0.15],
    [-0.2, -0.15],
    [0.2, -0.15],
  ];
  corners.forEach(([x, y], k) => {
    const r = [x, y, -h];
    // velocity at r: v + ω × r = v − [r]ₓ ω
    const J = new Float64Array(18);
    for (let i = 0; i < 3; i++) J[i * 6 + i] = 1;
    const rx = [0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) J[i * 6 + 3 + j] = -rx[i * 3 + j];
    constraints.push({
      kind: 'contact',
      cliques: [0],
      J: [J],
      mu: opts.mu ?? 0.6,
      stiffness: 5e4,
      tau_d: 0.02,
      phi0: -1e-4 * (1 + 0.3 * k),
    });
  });
  const spin = opts.spin ?? 0.5;
  return {
    dt,
    cliques: [{ nv: 6, A }],
    v_star: Float64Array.from([0.3, -0.1, -GRAVITY * dt - 0.05, 0.2, -0.1, spin]),
    constraints,
  };
}

/**
 * Two particles in contact (B on top of A in a tilted frame) plus an untouched third clique.
 * Clique 0: particle A (mass 2), clique 1: particle B (mass 1), clique 2: a free 2-dof system.
 */
export function twoCliques(): SapProblem {
  const dt = 0.01;
  const Rwc = rotation([0, 0.6, 0.8], 0.3); // columns: contact axes in world
  // J_B = R_WCᵀ, J_A = −R_WCᵀ
  const JB = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) JB[i * 3 + j] = Rwc[j * 3 + i];
  const JA = JB.map((x) => -x);
  return {
    dt,
    cliques: [
      { nv: 3, A: diag([2, 2, 2]) },
      { nv: 3, A: diag([1, 1, 1]) },
      { nv: 2, A: Float64Array.from([2, 0.5, 0.5, 1]) },
    ],
    v_star: Float64Array.from([0.1, 0, 0.05, 0.2, -0.1, -0.3, 1, -2]),
    constraints: [
      { kind: 'contact', cliques: [0, 1], J: [JA, JB], mu: 0.3, stiffness: 2e4, tau_d: 0.05, phi0: -2e-3 },
    ],
  };
}

/**
 * A 4-dof articulated clique with a random SPD A: a lower limit (active), an upper-only limit,
 * a two-sided limit, a PD drive hitting its effort limit and an unclamped PD drive; plus a contact
 * on the same clique.
 */
export function limitsAndDrives(seed = 7): SapProblem {
  const rng = seededRandom(seed);
  const dt = 0.005;
  const A = randomSpd(4, rng, 2);
  const J = new Float64Array(12);
  for (let k = 0; k < 12; k++) J[k] = uniform(rng, -0.5, 0.5);
  J[8] = 1; // normal row mostly along dof 0
  return {
    dt,
    cliques: [{ nv: 4, A }],
    v_star: Float64Array.from([-1.5, 0.8, 0.3, -0.6]),
    constraints: [
      { kind: 'limit', clique: 0, dof: 0, q0: -0.995, lower: -1, upper: Infinity, stiffness: 1e6, tau_d: dt },
      {
        kind: 'limit',
        clique: 0,
        dof: 1,
        q0: 0.498,
        lower: -Infinity,
        upper: 0.5,
        stiffness: 1e5,
        tau_d: 0.01,
      },
      { kind: 'limit', clique: 0, dof: 3, q0: 0, lower: -0.2, upper: 0.2, stiffness: 1e5, tau_d: 0.01 },
      {
        kind: 'pd',
        clique: 0,
        dof: 2,
        q0: 0.1,
        qd: 0.6,
        vd: 0,
        kp: 500,
        kd: 20,
        effort_limit: 2,
        u0: 0.5,
      },
      { kind: 'pd', clique: 0, dof: 3, q0: 0, qd: 0.01, vd: 0, kp: 50, kd: 5, effort_limit: 100, u0: 0 },
      { kind: 'contact', cliques: [0], J: [J], mu: 0.4, stiffness: 1e4, tau_d: 0.02, phi0: -1e-3 },
    ],
  };
}

/**
 * Joint dry friction on a 3-dof clique with a random SPD A: a DOF that slips (its free-motion
 * momentum exceeds δt·τ_c), one that sticks, and one with friction and a PD drive together.
 */
export function jointFrictionMix(seed = 11): SapProblem {
  const rng = seededRandom(seed);
  const dt = 0.002;
  return {
    dt,
    cliques: [{ nv: 3, A: randomSpd(3, rng, 1) }],
    v_star: Float64Array.from([0.8, -0.002, 0.3]),
    constraints: [
      { kind: 'joint_friction', clique: 0, dof: 0, friction: 5 },
      { kind: 'joint_friction', clique: 0, dof: 1, friction: 200 },
      { kind: 'pd', clique: 0, dof: 2, q0: 0, qd: 0.2, vd: 0, kp: 100, kd: 5, effort_limit: 50, u0: 0 },
      { kind: 'joint_friction', clique: 0, dof: 2, friction: 1, sigma: 1e-2 },
    ],
  };
}

/**
 * Holonomic constraints across two cliques: a coupler (1 row, q₀ of clique 0 against q₁ of
 * clique 1), a 3-row ball-like constraint with random Jacobian blocks in both cliques (rigid), a
 * compliant 2-row one inside clique 1, and a contact.
 */
export function holonomicMix(seed = 5): SapProblem {
  const rng = seededRandom(seed);
  const A0 = randomSpd(3, rng);
  const A1 = randomSpd(4, rng);
  const v_star = Float64Array.from({ length: 7 }, () => uniform(rng, -1, 1));
  const rand = (n: number) => Float64Array.from({ length: n }, () => uniform(rng, -1, 1));
  const coupler0 = new Float64Array(3);
  coupler0[0] = 1;
  const coupler1 = new Float64Array(4);
  coupler1[1] = -2;
  return {
    dt: 0.01,
    cliques: [
      { nv: 3, A: A0 },
      { nv: 4, A: A1 },
    ],
    v_star,
    constraints: [
      {
        kind: 'holonomic',
        cliques: [0, 1],
        J: [coupler0, coupler1],
        g0: Float64Array.from([0.01]),
        stiffness: Infinity,
        tau_d: 0,
      },
      {
        kind: 'holonomic',
        cliques: [0, 1],
        J: [rand(9), rand(12)],
        g0: rand(3).map((x) => x * 0.01),
        stiffness: Infinity,
        tau_d: 0,
      },
      {
        kind: 'holonomic',
        cliques: [1],
        J: [rand(8)],
        g0: rand(2).map((x) => x * 0.02),
        stiffness: 1e4,
        tau_d: 0.05,
      },
      {
        kind: 'contact',
        cliques: [1],
        J: [rand(12)],
        mu: 0.5,
        stiffness: 1e5,
        tau_d: 0.01,
        phi0: -0.001,
      },
    ],
  };
}

/**
 * Tendon limits: a rigid two-sided tendon across two cliques whose lower limit the free motion
 * violates (l₀ just above l_l, l̇* < 0), a compliant one-sided tendon inside clique 1 at its upper
 * limit, a tendon far inside its limits (inactive), a joint limit and a contact.
 */
export function tendonMix(seed = 11): SapProblem {
  const rng = seededRandom(seed);
  const A0 = randomSpd(3, rng);
  const A1 = randomSpd(4, rng);
  const v_star = Float64Array.from([-1.2, 0.4, 0.3, 0.9, -0.2, 0.5, 0.1]);
  const rand = (n: number) => Float64Array.from({ length: n }, () => uniform(rng, -1, 1));
  const dt = 0.01;
  return {
    dt,
    cliques: [
      { nv: 3, A: A0 },
      { nv: 4, A: A1 },
    ],
    v_star,
    constraints: [
      {
        kind: 'tendon',
        cliques: [0, 1],
        a: [Float64Array.from([0.5, 0, 0.2]), Float64Array.from([0, -0.5, 0, 0])],
        l0: -0.299,
        lower: -0.3,
        upper: 2,
        stiffness: Infinity,
        tau_d: 0,
      },
      {
        kind: 'tendon',
        cliques: [1],
        a: [Float64Array.from([0, 0, 1, 1])],
        l0: 0.099,
        lower: -Infinity,
        upper: 0.1,
        stiffness: 1e4,
        tau_d: 0.02,
      },
      {
        kind: 'tendon',
        cliques: [1],
        a: [Float64Array.from([1, 0, 0, -1])],
        l0: 0,
        lower: -1,
        upper: 1,
        stiffness: 1e5,
        tau_d: 0.01,
      },
      { kind: 'limit', clique: 0, dof: 1, q0: 0.49, lower: -Infinity, upper: 0.5, stiffness: 1e5, tau_d: dt },
      { kind: 'contact', cliques: [1], J: [rand(12)], mu: 0.5, stiffness: 1e5, tau_d: 0.01, phi0: -0.001 },
    ],
  };
}

/**
 * A pile-like problem with many cliques: `n` 6-dof bodies (random SPD A, falling v*), each with a
 * ground contact (one clique) and contacts with a few random neighbours (two cliques, J = ±R_WCᵀ
 * on the linear dofs plus lever-arm terms on the angular ones), and a PD drive and a limit on
 * some bodies. Exercises the block-sparse factorization through the public problem API.
 */
export function cliquePile(seed = 3, n = 24): SapProblem {
  const rng = seededRandom(seed);
  const dt = 0.002;
  const cliques = Array.from({ length: n }, () => ({ nv: 6, A: randomSpd(6, rng, 3) }));
  const v_star = Float64Array.from({ length: 6 * n }, (_, k) =>
    k % 6 === 2 ? -GRAVITY * dt + uniform(rng, -0.05, 0.05) : uniform(rng, -0.05, 0.05),
  );
  const constraints: SapConstraintSpec[] = [];
  const block = (sign: number): Float64Array => {
    const R = rotation(
      [uniform(rng, -1, 1), uniform(rng, -1, 1), 1].map((x, _, a) => x / Math.hypot(...a)) as [
        number,
        number,
        number,
      ],
      uniform(rng, -0.3, 0.3),
    );
    const J = new Float64Array(18);
    const r = [uniform(rng, -0.05, 0.05), uniform(rng, -0.05, 0.05), uniform(rng, -0.05, 0.05)];
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        J[i * 6 + j] = sign * R[j * 3 + i];
        // −(Rᵀ[r]ₓ)
        let s = 0;
        const rx = [0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0];
        for (let k = 0; k < 3; k++) s += R[k * 3 + i] * rx[k * 3 + j];
        J[i * 6 + 3 + j] = -sign * s;
      }
    }
    return J;
  };
  for (let b = 0; b < n; b++) {
    if (b % 3 === 0) {
      constraints.push({
        kind: 'contact',
        cliques: [b],
        J: [block(1)],
        mu: 0.5,
        stiffness: 1e6,
        tau_d: 0.01,
        phi0: -1e-4,
      });
    }
    const nb = 1 + Math.floor(rng() * 3);
    for (let k = 0; k < nb; k++) {
      const a = Math.floor(rng() * n);
      if (a === b) continue;
      constraints.push({
        kind: 'contact',
        cliques: [a, b],
        J: [block(-1), block(1)],
        mu: uniform(rng, 0.2, 0.8),
        stiffness: 1e6,
        tau_d: 0.01,
        phi0: uniform(rng, -2e-4, 5e-4),
      });
    }
  }
  constraints.push({
    kind: 'pd',
    clique: 1,
    dof: 2,
    q0: 0,
    qd: 0.1,
    vd: 0,
    kp: 100,
    kd: 5,
    effort_limit: 10,
    u0: 0,
  });
  constraints.push({
    kind: 'limit',
    clique: 2,
    dof: 0,
    q0: 0.099,
    lower: -0.1,
    upper: 0.1,
    stiffness: 1e5,
    tau_d: 0.01,
  });
  return { dt, cliques, v_star, constraints };
}

/**
 * Two articulated cliques (9 and 7 dofs, random SPD A) with contacts whose Jacobian blocks touch
 * only a prefix of their clique's dofs, as a contact on a limb reaches only the joints on its path
 * to the root: contacts on each clique alone and contacts coupling the two. Exercises the sparse
 * column lists of the assembly and evaluation.
 */
export function articulatedPair(seed = 21): SapProblem {
  const rng = seededRandom(seed);
  const dt = 0.005;
  const sizes = [9, 7];
  const cliques = sizes.map((nv) => ({ nv, A: randomSpd(nv, rng, 2) }));
  const v_star = Float64Array.from({ length: 16 }, () => uniform(rng, -0.3, 0.3));
  // a 3 × nv block nonzero on a random prefix of at least three dofs
  const block = (nv: number): Float64Array => {
    const J = new Float64Array(3 * nv);
    const reach = 3 + Math.floor(rng() * (nv - 2));
    for (let i = 0; i < 3; i++) for (let m = 0; m < reach; m++) J[i * nv + m] = uniform(rng, -1, 1);
    return J;
  };
  const constraints: SapConstraintSpec[] = [];
  for (let k = 0; k < 8; k++) {
    const which = k % 3;
    const cl = which === 2 ? [0, 1] : [which];
    constraints.push({
      kind: 'contact',
      cliques: cl,
      J: cl.map((c) => block(sizes[c])),
      mu: uniform(rng, 0.3, 0.9),
      stiffness: 1e5,
      tau_d: 0.01,
      phi0: uniform(rng, -2e-3, 5e-4),
    });
  }
  return { dt, cliques, v_star, constraints };
}
