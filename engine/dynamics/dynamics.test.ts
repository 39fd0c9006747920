import { describe, expect, it } from 'vitest';
import {
  makeRng,
  quatFromAxisAngle,
  quatIntegrate,
  quatRotate,
  transformInverse,
  transformMul,
} from '../math';
import { JointType, ModelBuilder, type JointTypeName, type SapModel } from '../model';
import { forwardKinematics, forwardVelocity, makeKinematicsData, type KinematicsData } from '../kinematics';
import { crbaTree, makeCompositeScratch } from './crba';
import { makeRneaScratch, rneaTree } from './rnea';

/** a random tree (or chain) mixing every joint type; a free joint only at the root */
function randomTree(seed: number, nBodies: number, chain: boolean, plainFrames = false): SapModel {
  const rnd = makeRng(seed);
  const r = (a: number, b: number) => a + (b - a) * rnd();
  const b = new ModelBuilder();
  const types: JointTypeName[] = ['revolute', 'prismatic', 'ball', 'fixed'];
  for (let i = 0; i < nBodies; i++) {
    const body = b.addBody({ label: `b${i}`, X_wb: [r(-1, 1), r(-1, 1), r(0, 2), 0, 0, 0, 1] });
    b.addShape({
      body,
      type: 'box',
      size: [r(0.05, 0.3), r(0.05, 0.3), r(0.05, 0.3)],
      X_bs: [r(-0.1, 0.1), r(-0.1, 0.1), r(-0.1, 0.1), r(-1, 1), r(-1, 1), r(-1, 1), 1],
      cfg: { density: r(100, 2000) },
    });
    const type: JointTypeName =
      i === 0 ? (rnd() < 0.5 ? 'free' : 'revolute') : types[Math.floor(rnd() * (i === nBodies - 1 ? 3 : 4))];
    const parent = i === 0 ? -1 : chain ? i - 1 : Math.floor(rnd() * i);
    const quat = () => {
      const q = [r(-1, 1), r(-1, 1), r(-1, 1), r(-1, 1)];
      const n = Math.hypot(...q);
      return q.map((x) => x / n);
    };
    b.addJoint({
      type,
      parent,
      child: body,
      // plainFrames: unrotated joint frames, the child's at its origin on every other joint (as
      // MJCF bodies give them: FK's shortcuts)
      X_p:
        type === 'free'
          ? undefined
          : [r(-0.3, 0.3), r(-0.3, 0.3), r(-0.3, 0.3), ...(plainFrames ? [0, 0, 0, 1] : quat())],
      X_c:
        type === 'free'
          ? undefined
          : plainFrames
            ? i % 2 === 0
              ? [0, 0, 0, 0, 0, 0, 1]
              : [r(-0.3, 0.3), r(-0.3, 0.3), r(-0.3, 0.3), 0, 0, 0, 1]
            : [r(-0.3, 0.3), r(-0.3, 0.3), r(-0.3, 0.3), ...quat()],
      axis: [r(-1, 1), r(-1, 1), r(-1, 1)],
      armature: r(0, 0.05),
    });
  }
  return b.finalize();
}

function randomState(m: SapModel, seed: number): { q: Float64Array; v: Float64Array } {
  const rnd = makeRng(seed);
  const q = Float64Array.from(m.joint_q0);
  const v = new Float64Array(m.joint_dof_count);
  for (let j = 0; j < m.joint_count; j++) {
    const s = m.joint_q_start[j];
    const t = m.joint_type[j];
    if (t === JointType.REVOLUTE || t === JointType.PRISMATIC) q[s] = rnd() * 2 - 1;
    if (t === JointType.BALL || t === JointType.FREE) {
      const o = t === JointType.FREE ? s + 3 : s;
      if (t === JointType.FREE) for (let k = 0; k < 3; k++) q[s + k] = rnd() * 2 - 1;
      const qq = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
      const n = Math.hypot(...qq);
      for (let k = 0; k < 4; k++) q[o + k] = qq[k] / n;
    }
  }
  for (let k = 0; k < v.length; k++) v[k] = rnd() * 2 - 1;
  return { q, v };
}

function massMatrix(m: SapModel, d: KinematicsData): Float64Array {
  const nv = m.joint_dof_count;
  const M = new Float64Array(nv * nv);
  const comp = makeCompositeScratch(m);
  for (let t = 0; t < m.tree_count; t++) {
    const v0 = m.tree_dof_start[t];
    const n = m.tree_dof_start[t + 1] - v0;
    const block = new Float64Array(n * n);
    crbaTree(m, d, t, comp, block);
    for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) M[(v0 + i) * nv + v0 + k] = block[i * n + k];
  }
  return M;
}

function rnea(
  m: SapModel,
  d: KinematicsData,
  qdd: Float64Array | null,
  velocity: boolean,
  gravity: boolean,
): Float64Array {
  const tau = new Float64Array(m.joint_dof_count);
  const s = makeRneaScratch(m);
  for (let t = 0; t < m.tree_count; t++) rneaTree(m, d, t, { qdd, velocity, gravity, body_f: null }, s, tau);
  return tau;
}

function isSpd(M: Float64Array, n: number): boolean {
  const L = Float64Array.from(M);
  for (let j = 0; j < n; j++) {
    let s = L[j * n + j];
    for (let k = 0; k < j; k++) s -= L[j * n + k] ** 2;
    if (!(s > 0)) return false;
    const ljj = Math.sqrt(s);
    L[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let t = L[i * n + j];
      for (let k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = t / ljj;
    }
  }
  return true;
}

/** advances q by h along internal velocity v (exact for the test's purposes) */
function advance(m: SapModel, q: Float64Array, v: Float64Array, h: number): Float64Array {
  const out = Float64Array.from(q);
  for (let j = 0; j < m.joint_count; j++) {
    const s = m.joint_q_start[j],
      ds = m.joint_qd_start[j];
    switch (m.joint_type[j]) {
      case JointType.REVOLUTE:
      case JointType.PRISMATIC:
        out[s] += h * v[ds];
        break;
      case JointType.BALL: {
        // ω expressed in F: q_FM ← exp(hω) ⊗ q_FM
        quatIntegrate(q, s, v[ds], v[ds + 1], v[ds + 2], h, out, s);
        break;
      }
      case JointType.FREE:
        for (let k = 0; k < 3; k++) out[s + k] += h * v[ds + 3 + k];
        quatIntegrate(q, s + 3, v[ds], v[ds + 1], v[ds + 2], h, out, s + 3);
        break;
    }
  }
  return out;
}

describe('forward kinematics', () => {
  it('every body pose is X_wP · X_p · X_J(q) · X_c⁻¹ and every hinge column (a_w; p × a_w)', () => {
    for (const [seed, plain] of [
      [11, false],
      [12, true],
      [13, true],
    ] as const) {
      const m = randomTree(seed, 12, false, plain);
      const d = makeKinematicsData(m);
      const { q } = randomState(m, seed);
      forwardKinematics(m, q, d);
      const X = new Float64Array(7);
      const Xj = new Float64Array(7);
      const Xc = new Float64Array(7);
      const out = new Float64Array(7);
      const a = new Float64Array(3);
      let hinges = 0;
      for (let j = 0; j < m.joint_count; j++) {
        const p = m.joint_parent[j];
        const t = m.joint_type[j];
        if (p < 0) X.set(m.joint_X_p.subarray(j * 7, j * 7 + 7));
        else transformMul(d.body_X, p * 7, m.joint_X_p, j * 7, X, 0);
        Xj.set([0, 0, 0, 0, 0, 0, 1]);
        const s = m.joint_q_start[j];
        const [ax, ay, az] = m.joint_axis.subarray(j * 3, j * 3 + 3);
        if (t === JointType.REVOLUTE) quatFromAxisAngle(ax, ay, az, q[s], Xj, 3);
        else if (t === JointType.PRISMATIC) Xj.set([ax * q[s], ay * q[s], az * q[s]]);
        else if (t === JointType.BALL) Xj.set(q.subarray(s, s + 4), 3);
        else if (t === JointType.FREE) Xj.set(q.subarray(s, s + 7));
        transformMul(X, 0, Xj, 0, out, 0);
        transformInverse(m.joint_X_c, j * 7, Xc, 0);
        transformMul(out, 0, Xc, 0, out, 0);
        for (let k = 0; k < 7; k++) expect(d.body_X[j * 7 + k]).toBeCloseTo(out[k], 13);
        if (t !== JointType.REVOLUTE) continue;
        hinges++;
        const n = Math.hypot(ax, ay, az);
        quatRotate(X, 3, Float64Array.of(ax / n, ay / n, az / n), 0, a, 0);
        const S = d.dof_S.subarray(m.joint_qd_start[j] * 6);
        const cross = [X[1] * a[2] - X[2] * a[1], X[2] * a[0] - X[0] * a[2], X[0] * a[1] - X[1] * a[0]];
        for (let k = 0; k < 3; k++) {
          expect(S[k]).toBeCloseTo(a[k], 13);
          expect(S[3 + k]).toBeCloseTo(cross[k], 13);
        }
      }
      expect(hinges).toBeGreaterThan(1);
    }
  });
});

describe('forward kinematics of flagged joints', () => {
  it('a parent-closed subset gets the full pass bit for bit and leaves the others untouched', () => {
    for (const seed of [21, 22]) {
      const m = randomTree(seed, 14, false, seed === 22);
      const { q } = randomState(m, seed);
      const full = makeKinematicsData(m);
      forwardKinematics(m, q, full, 0, m.joint_count, false);
      // the ancestors of two bodies (with their own joints)
      const only = new Uint8Array(m.joint_count);
      for (const b of [m.joint_count - 1, Math.floor(m.joint_count / 2)]) {
        for (let j = b; j >= 0 && only[j] === 0; j = m.joint_parent[j]) only[j] = 1;
      }
      const part = makeKinematicsData(m);
      for (const a of [part.body_X, part.body_R, part.body_com_w, part.dof_S]) a.fill(-7);
      forwardKinematics(m, q, part, 0, m.joint_count, false, only);
      let flagged = 0;
      for (let j = 0; j < m.joint_count; j++) {
        const same = (a: Float64Array, b: Float64Array, w: number, lo: number, hi: number): void => {
          for (let k = lo * w; k < hi * w; k++) expect(a[k]).toBe(only[j] ? b[k] : -7);
        };
        same(part.body_X, full.body_X, 7, j, j + 1);
        same(part.body_R, full.body_R, 9, j, j + 1);
        same(part.body_com_w, full.body_com_w, 3, j, j + 1);
        same(part.dof_S, full.dof_S, 6, m.joint_qd_start[j], m.joint_qd_start[j + 1]);
        flagged += only[j];
      }
      expect(flagged).toBeGreaterThan(1);
      expect(flagged).toBeLessThan(m.joint_count);
    }
  });
});

describe('dynamics on random trees with every joint type', () => {
  for (const [seed, n, chain] of [
    [1, 5, true],
    [2, 8, false],
    [3, 12, false],
    [4, 6, true],
    [5, 10, true],
  ] as const) {
    it(`seed ${seed}: M is SPD and M·a = RNEA(q,0,a) − RNEA(q,0,0)`, () => {
      const m = randomTree(seed, n, chain);
      const { q } = randomState(m, seed + 100);
      const d = makeKinematicsData(m);
      forwardKinematics(m, q, d);
      const nv = m.joint_dof_count;
      const M = massMatrix(m, d);
      for (let i = 0; i < nv; i++) for (let k = 0; k < nv; k++) expect(M[i * nv + k]).toBe(M[k * nv + i]);
      expect(isSpd(M, nv)).toBe(true);
      const rnd = makeRng(seed + 7);
      const a = Float64Array.from({ length: nv }, () => rnd() * 2 - 1);
      const t1 = rnea(m, d, a, false, false);
      const t0 = rnea(m, d, null, false, false);
      // armature is a rotor inertia outside RNEA's bodies: add it to compare
      const Ma = new Float64Array(nv);
      let scale = 0;
      for (let i = 0; i < nv; i++) {
        for (let k = 0; k < nv; k++) Ma[i] += M[i * nv + k] * a[k];
        scale = Math.max(scale, Math.abs(Ma[i]));
      }
      for (let j = 0; j < m.joint_count; j++) {
        for (let k = m.joint_qd_start[j]; k < m.joint_qd_start[j + 1]; k++) {
          const pub =
            m.joint_type[j] === JointType.FREE
              ? m.joint_qd_start[j] + ((k - m.joint_qd_start[j] + 3) % 6)
              : k;
          t1[k] += m.joint_armature[pub] * a[k];
        }
      }
      for (let i = 0; i < nv; i++) expect(Math.abs(Ma[i] - (t1[i] - t0[i]))).toBeLessThan(1e-10 * scale);
    });

    it(`seed ${seed}: body twists match finite differences of poses; kinetic energy matches ½vᵀMv`, () => {
      const m = randomTree(seed, n, chain);
      const { q, v } = randomState(m, seed + 200);
      const d = makeKinematicsData(m);
      forwardKinematics(m, q, d);
      forwardVelocity(m, v, d);
      const h = 1e-6;
      const dp = makeKinematicsData(m),
        dm = makeKinematicsData(m);
      forwardKinematics(m, advance(m, q, v, h), dp);
      forwardKinematics(m, advance(m, q, v, -h), dm);
      let T = 0;
      for (let b = 0; b < m.body_count; b++) {
        // COM velocity from the twist: v_C = v₀ + ω × c
        const V = d.body_V.subarray(b * 6, b * 6 + 6);
        const c = d.body_com_w.subarray(b * 3, b * 3 + 3);
        const vc = [
          V[3] + V[1] * c[2] - V[2] * c[1],
          V[4] + V[2] * c[0] - V[0] * c[2],
          V[5] + V[0] * c[1] - V[1] * c[0],
        ];
        for (let k = 0; k < 3; k++) {
          const fd = (dp.body_com_w[b * 3 + k] - dm.body_com_w[b * 3 + k]) / (2 * h);
          expect(Math.abs(fd - vc[k])).toBeLessThan(1e-6);
        }
        // ω from the rotation matrix derivative: [ω]× = Ṙ Rᵀ
        const R = d.body_R.subarray(b * 9, b * 9 + 9);
        const Rd = Array.from(
          { length: 9 },
          (_, k) => (dp.body_R[b * 9 + k] - dm.body_R[b * 9 + k]) / (2 * h),
        );
        const W = (r: number, col: number) =>
          Rd[r * 3] * R[col * 3] + Rd[r * 3 + 1] * R[col * 3 + 1] + Rd[r * 3 + 2] * R[col * 3 + 2];
        expect(Math.abs(W(2, 1) - V[0])).toBeLessThan(1e-6);
        expect(Math.abs(W(0, 2) - V[1])).toBeLessThan(1e-6);
        expect(Math.abs(W(1, 0) - V[2])).toBeLessThan(1e-6);
        const I = d.body_I_w.subarray(b * 9, b * 9 + 9);
        const Iw = [0, 1, 2].map((r) => I[r * 3] * V[0] + I[r * 3 + 1] * V[1] + I[r * 3 + 2] * V[2]);
        T +=
          0.5 * m.body_mass[b] * (vc[0] ** 2 + vc[1] ** 2 + vc[2] ** 2) +
          0.5 * (Iw[0] * V[0] + Iw[1] * V[1] + Iw[2] * V[2]);
      }
      const nv = m.joint_dof_count;
      const M = massMatrix(m, d);
      let vMv = 0;
      for (let i = 0; i < nv; i++) {
        for (let k = 0; k < nv; k++) vMv += v[i] * M[i * nv + k] * v[k];
      }
      let arm = 0;
      for (let j = 0; j < m.joint_count; j++) {
        for (let k = m.joint_qd_start[j]; k < m.joint_qd_start[j + 1]; k++) {
          const pub =
            m.joint_type[j] === JointType.FREE
              ? m.joint_qd_start[j] + ((k - m.joint_qd_start[j] + 3) % 6)
              : k;
          arm += m.joint_armature[pub] * v[k] * v[k];
        }
      }
      expect(Math.abs(0.5 * (vMv - arm) - T)).toBeLessThan(1e-10 * Math.max(1, T));
    });

    it(`seed ${seed}: Coriolis terms satisfy the energy identity q̇ᵀ(C q̇) = ½ q̇ᵀṀq̇`, () => {
      const m = randomTree(seed, n, chain);
      const { q, v } = randomState(m, seed + 300);
      const d = makeKinematicsData(m);
      forwardKinematics(m, q, d);
      forwardVelocity(m, v, d);
      const nv = m.joint_dof_count;
      const c = rnea(m, d, null, true, false);
      const h = 1e-6;
      const dp = makeKinematicsData(m),
        dm = makeKinematicsData(m);
      forwardKinematics(m, advance(m, q, v, h), dp);
      forwardKinematics(m, advance(m, q, v, -h), dm);
      const Mp = massMatrix(m, dp),
        Mm = massMatrix(m, dm);
      let vCv = 0,
        vMdv = 0;
      for (let i = 0; i < nv; i++) {
        vCv += v[i] * c[i];
        for (let k = 0; k < nv; k++) vMdv += (v[i] * (Mp[i * nv + k] - Mm[i * nv + k]) * v[k]) / (2 * h);
      }
      expect(Math.abs(vCv - 0.5 * vMdv)).toBeLessThan(1e-5 * Math.max(1, Math.abs(vCv)));
    });
  }
});

describe('gravity', () => {
  it('a free body under gravity: bias = −m·g on the linear DOFs about its origin', () => {
    const b = new ModelBuilder();
    const body = b.addBody({ X_wb: [1, 2, 3, 0, 0, 0, 1] });
    b.addShape({ body, type: 'sphere', size: [0.1, 0, 0], cfg: { density: 1000 } });
    b.addJoint({ type: 'free', parent: -1, child: body });
    const m = b.finalize();
    const d = makeKinematicsData(m);
    forwardKinematics(m, m.joint_q0, d);
    const g = rnea(m, d, null, false, true);
    const mass = m.body_mass[0];
    expect(g[5]).toBeCloseTo(mass * 9.81, 9);
    expect(Math.abs(g[0]) + Math.abs(g[1]) + Math.abs(g[2]) + Math.abs(g[3]) + Math.abs(g[4])).toBeLessThan(
      1e-12,
    );
  });

  for (const seed of [3, 8]) {
    it(`seed ${seed}: gravity compensation is the wrench −gravcomp·m·g at each COM; 1 everywhere cancels g`, () => {
      const m = randomTree(seed, 7, false);
      const { q } = randomState(m, seed + 100);
      const d = makeKinematicsData(m);
      forwardKinematics(m, q, d);
      const g0 = rnea(m, d, null, false, true);
      expect(Math.max(...g0.map(Math.abs))).toBeGreaterThan(1);
      // per-body fractions, the same as external forces at the COMs
      const rnd = makeRng(seed);
      const wrench = new Float64Array(m.body_count * 6);
      for (let b = 0; b < m.body_count; b++) {
        const c = 2 * rnd() - 0.5;
        m.body_gravcomp[b] = c;
        for (let k = 0; k < 3; k++) wrench[b * 6 + k] = -c * m.body_mass[b] * m.gravity[k];
      }
      const withComp = rnea(m, d, null, false, true);
      m.body_gravcomp.fill(0);
      const viaWrench = new Float64Array(m.joint_dof_count);
      const s = makeRneaScratch(m);
      for (let t = 0; t < m.tree_count; t++)
        rneaTree(m, d, t, { qdd: null, velocity: false, gravity: true, body_f: wrench }, s, viaWrench);
      for (let i = 0; i < g0.length; i++) expect(withComp[i]).toBeCloseTo(viaWrench[i], 10);
      expect(Math.max(...withComp.map((x, i) => Math.abs(x - g0[i])))).toBeGreaterThan(0.1);
      // only with gravity: the velocity terms alone do not see it
      expect(Array.from(rnea(m, d, null, false, false))).toEqual(Array.from(g0.map(() => 0)));
      // compensated in full, the weight is gone
      m.body_gravcomp.fill(1);
      for (const x of rnea(m, d, null, false, true)) expect(Math.abs(x)).toBeLessThan(1e-10);
    });
  }
});
