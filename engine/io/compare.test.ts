/**
 * The same robot in two formats (SPEC §5.2): Google Barkour vB as MJCF (MANIFEST D2) and URDF (U1) must
 * give the same model wherever the files carry the same data.
 *
 * Differences that come from the files themselves (so the tolerances below are not 1e-12):
 * - the MJCF rounds numbers to ~6 significant digits (e.g. joint limit 1.0472 vs the URDF's
 *   1.0471975511965976, inertia as `diaginertia` + `quat` at 6 digits vs the URDF's full tensor), so
 *   limits agree to 1e-4 and M(q) to 3e-7 relative (of its largest diagonal entry);
 * - the MJCF adds joint armature 0.011 (class bkvb), damping 0.024 and frictionloss 0.13, and position
 *   servos (general, affine bias); the URDF has none of these (armature is removed from M before comparing);
 * - the URDF has 20 extra massless fixed frames (links without <inertial>), the MJCF 2 massless camera
 *   bodies: they change the body count, not the dynamics.
 */
import { describe, expect, it } from 'vitest';
import { crbaTree, makeCompositeScratch } from '../dynamics';
import { forwardKinematics, makeKinematicsData } from '../kinematics';
import { makeRng, quatRotate } from '../math';
import { JointType, type SapModel } from '../model';
import { NodeFsResolver } from './assets/node_fs';
import { loadModelAsset } from './import';
import { MJCF_MODELS, SHARED_ASSETS, URDF_MODELS } from './testing_assets';

function massMatrix(m: SapModel, q: Float64Array): Float64Array {
  const d = makeKinematicsData(m);
  forwardKinematics(m, q, d);
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

function worldAxis(m: SapModel, q: Float64Array, j: number): number[] {
  const d = makeKinematicsData(m);
  forwardKinematics(m, q, d);
  const out = new Float64Array(3);
  quatRotate(d.joint_X_wF, j * 7 + 3, m.joint_axis, j * 3, out, 0);
  return Array.from(out);
}

describe('Barkour vB: MJCF (D2) and URDF (U1) give the same model', async () => {
  const resolver = new NodeFsResolver({ root: SHARED_ASSETS });
  const mj = (
    await loadModelAsset(
      'mjcf',
      { path: MJCF_MODELS.D2.replace('scene.xml', 'barkour_vb.xml') },
      { resolver },
    )
  ).model;
  const ur = (await loadModelAsset('urdf', { path: URDF_MODELS.U1 }, { resolver, floating: true })).model;
  const moving = (m: SapModel) =>
    Array.from(m.joint_type)
      .map((t, j) => (t === JointType.REVOLUTE ? m.joint_label[j] : ''))
      .filter((l) => l !== '')
      .sort();
  const names = moving(mj);
  // model joint index in each model, by name
  const jm = new Map(names.map((n) => [n, mj.joint_label.indexOf(n)]));
  const ju = new Map(names.map((n) => [n, ur.joint_label.indexOf(n)]));

  it('same total mass (1e-6 relative)', () => {
    const total = (m: SapModel) => m.body_mass.reduce((a, b) => a + b, 0);
    expect(total(mj)).toBeGreaterThan(14);
    expect(Math.abs(total(mj) - total(ur)) / total(ur)).toBeLessThan(1e-6);
  });

  it('same joints: a free base and 12 revolute joints with the same names, axes and limits', () => {
    expect(names).toHaveLength(12);
    expect(moving(ur)).toEqual(names);
    expect(mj.joint_type[0]).toBe(JointType.FREE);
    expect(ur.joint_type[0]).toBe(JointType.FREE);
    const q0m = new Float64Array(mj.joint_q0);
    const q0u = new Float64Array(ur.joint_q0);
    for (const n of names) {
      const a = jm.get(n)!,
        b = ju.get(n)!;
      const am = worldAxis(mj, q0m, a),
        au = worldAxis(ur, q0u, b);
      for (let k = 0; k < 3; k++) expect(am[k]).toBeCloseTo(au[k], 9);
      const dm = mj.joint_qd_start[a],
        du = ur.joint_qd_start[b];
      // the MJCF rounds the limits to 5–6 digits
      expect(mj.joint_limit_lower[dm]).toBeCloseTo(ur.joint_limit_lower[du], 4);
      expect(mj.joint_limit_upper[dm]).toBeCloseTo(ur.joint_limit_upper[du], 4);
    }
  });

  it('same mass matrix M(q) at random configurations (armature removed)', () => {
    const rnd = makeRng(7);
    const nv = mj.joint_dof_count;
    expect(ur.joint_dof_count).toBe(nv);
    // DOF map: the free base (0..5) then the revolute joints by name
    const map = new Array<number>(nv);
    for (let k = 0; k < 6; k++) map[mj.joint_qd_start[0] + k] = ur.joint_qd_start[0] + k;
    for (const n of names) map[mj.joint_qd_start[jm.get(n)!]] = ur.joint_qd_start[ju.get(n)!];
    let worst = 0;
    for (let trial = 0; trial < 5; trial++) {
      const qm = new Float64Array(mj.joint_coord_count);
      const qu = new Float64Array(ur.joint_coord_count);
      const quat = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
      const qn = Math.hypot(...quat);
      const base = [rnd(), rnd(), rnd() + 0.3, ...quat.map((v) => v / qn)];
      qm.set(base, mj.joint_q_start[0]);
      qu.set(base, ur.joint_q_start[0]);
      for (const n of names) {
        const a = jm.get(n)!;
        const lo = Math.max(mj.joint_limit_lower[mj.joint_qd_start[a]], -2),
          hi = Math.min(mj.joint_limit_upper[mj.joint_qd_start[a]], 2);
        const v = lo + (hi - lo) * rnd();
        qm[mj.joint_q_start[a]] = v;
        qu[ur.joint_q_start[ju.get(n)!]] = v;
      }
      const Mm = massMatrix(mj, qm);
      const Mu = massMatrix(ur, qu);
      let scale = 0;
      for (let i = 0; i < nv; i++) scale = Math.max(scale, Math.abs(Mu[i * nv + i]));
      for (let i = 0; i < nv; i++) {
        for (let k = 0; k < nv; k++) {
          let a = Mm[i * nv + k];
          if (i === k) a -= mj.joint_armature[i]; // 1-DOF joints: internal = public index; free base: 0
          const b = Mu[map[i] * nv + map[k]];
          worst = Math.max(worst, Math.abs(a - b) / scale);
        }
      }
    }
    expect(worst).toBeLessThan(1e-6); // measured 2.7e-7 (the MJCF's 6-digit inertias)
  });
});
