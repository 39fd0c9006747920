import { describe, expect, it } from 'vitest';
import { shapeMaterialFallback } from '../../collision/material';
import { ShapeType } from '../../model';
import { resolveSelection } from './authoring';
import { SceneError, SceneUnsupportedError } from './errors';
import { loadScene, type LoadedScene } from './load';
import { chainScene } from './testing';

/* eslint-disable @typescript-eslint/no-explicit-any */

function catchErr(fn: () => unknown): SceneError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SceneError);
    return e as SceneError;
  }
  throw new Error('expected a SceneError');
}

/** chain of 5 bodies: free base (DOFs 0..5) + 4 revolute joints (DOFs 6..9) */
/** a strict load (the tests pin the errors of strict loading) */
function withOps(ops: unknown[], extra: Record<string, unknown> = {}): LoadedScene {
  return loadScene({ ...chainScene(5), post_build: ops, ...extra }, { strict: true });
}
const arr = (a: ArrayLike<number>) => Array.from(a);

describe('selectors and ranges', () => {
  it.each([
    [{ range: 'all' }, [0, 1, 2, 3, 4, 5]],
    [{}, [0, 1, 2, 3, 4, 5]],
    [{ range: 'head:2' }, [0, 1]],
    [{ range: 'head:10' }, [0, 1, 2, 3, 4, 5]],
    [{ range: 'tail:2' }, [4, 5]],
    [{ range: 'from:4' }, [4, 5]],
    [{ range: 'from:-1' }, [5]],
    [{ range: ' head : 3 ' }, [0, 1, 2]],
    [{ range: [1, 3] }, [1, 2]],
    [{ range: [1, null] }, [1, 2, 3, 4, 5]],
    [{ range: [-3, null] }, [3, 4, 5]],
    [{ range: [null, -4] }, [0, 1]],
    [{ range: [4, 2] }, []],
    [{ index: 2 }, [2]],
    [{ index: -1 }, [5]],
  ])('%j', (sel, want) => {
    expect(resolveSelection(sel as any, 6, ['post_build', 0])).toEqual(want);
  });

  it('rejects out-of-range indices with the key path', () => {
    expect(() => resolveSelection({ index: 6 }, 6, ['post_build', 3])).toThrow(
      /^post_build\[3\]\.index: index 6 is out of range/,
    );
    expect(() => resolveSelection({ index: -7 }, 6, ['x'])).toThrow(SceneError);
    expect(() => resolveSelection({ range: 'head:-1' }, 6, ['x'])).toThrow(/head:N needs N ≥ 0/);
  });

  it('set_array over DOF arrays with every range form', () => {
    const s = withOps([
      { op: 'set_array', array: 'joint_armature', range: 'all', value: 0.5 },
      { op: 'set_array', array: 'joint_armature', range: 'from:6', value: 0.02 },
      { op: 'set_array', array: 'joint_armature', range: [7, 9], values: [0.1, 0.2] },
      { op: 'set_array', array: 'joint_armature', index: -1, value: 'pi' },
      { op: 'set_array', array: 'joint_target_ke', range: 'tail:4', values: [1, 2, 3, 4] },
      { op: 'set_array', array: 'joint_target_kd', range: 'head:6', value: 7 },
    ]);
    expect(arr(s.model.joint_armature)).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.02, 0.1, 0.2, Math.PI]);
    expect(arr(s.model.joint_target_ke)).toEqual([0, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
    expect(arr(s.model.joint_target_kd)).toEqual([7, 7, 7, 7, 7, 7, 0, 0, 0, 0]);
    // implicit target modes follow the gains: kd only ⇒ velocity, ke > 0 ⇒ position
    expect(arr(s.joint_target_mode)).toEqual([2, 2, 2, 2, 2, 2, 1, 1, 1, 1]);
  });

  it('joint_q over coordinates and from_array / copy_array', () => {
    const s = withOps([
      { op: 'set_array', array: 'joint_q', range: [0, 3], values: [0, 0, 0.67] },
      { op: 'set_array', array: 'joint_q', range: [3, 7], values: [0, 0, 0, 1] },
      { op: 'set_array', array: 'joint_q', range: 'from:7', values: [0.1, 0.2, 0.3, 0.4] },
      { op: 'set_array', array: 'joint_target_pos', range: 'from:6', from_array: 'joint_q' },
      { op: 'copy_array', src: 'joint_target_pos', dst: 'joint_target_vel', range: 'from:8' },
      { op: 'copy_array', src: 'joint_q', dst: 'joint_qd', src_range: [7, 9], range: [8, 10] },
    ]);
    expect(arr(s.model.joint_q0)).toEqual([0, 0, 0.67, 0, 0, 0, 1, 0.1, 0.2, 0.3, 0.4]);
    // joint_target_pos[6..9] ← joint_q[6..9] (index-wise, as in the SAP Warp scenes)
    expect(arr(s.model.joint_target_pos)).toEqual([0, 0, 0, 0, 0, 0, 1, 0.1, 0.2, 0.3]);
    expect(arr(s.model.joint_target_vel)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0.2, 0.3]);
    expect(arr(s.model.joint_qd0)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0.1, 0.2]);
  });

  it('value counts and indices are checked', () => {
    expect(
      catchErr(() => withOps([{ op: 'set_array', array: 'joint_q', range: 'head:3', values: [1, 2] }]))
        .reason,
    ).toMatch(/expected 3 value\(s\) for the selected entries of 'joint_q'; got 2/);
    expect(catchErr(() => withOps([{ op: 'set_array', array: 'joint_q', index: 11, value: 1 }])).path).toBe(
      'post_build[0].index',
    );
    expect(
      catchErr(() => withOps([{ op: 'set_array', array: 'joint_q', range: 'all', from_array: 'joint_qd' }])),
    ).toMatchObject({
      path: 'post_build[0].from_array',
      reason: "source array 'joint_qd' has 10 entries; entry 10 does not exist",
    });
    expect(
      catchErr(() => withOps([{ op: 'set_array', array: 'shape_collision_group', index: 0, value: 1.5 }]))
        .reason,
    ).toMatch(/must be integers/);
  });

  it('a multi-DOF joint takes one value for all its DOFs, or per-DOF values', () => {
    const ok = withOps([{ op: 'set_array', array: 'joint_armature', range: 'head:6', value: 0.3 }]);
    expect(arr(ok.model.joint_armature.subarray(0, 6))).toEqual([0.3, 0.3, 0.3, 0.3, 0.3, 0.3]);
    const some = withOps([{ op: 'set_array', array: 'joint_armature', range: 'head:3', value: 0.3 }]);
    expect(arr(some.model.joint_armature.subarray(0, 6))).toEqual([0.3, 0.3, 0.3, 0, 0, 0]);
    expect(some.unsupported).toEqual([]);
  });
});

describe('joint operations', () => {
  it('set_joint_targets by range, joint, joints, label_prefix and match; modes override gains', () => {
    const s = withOps([
      { op: 'set_joint_targets', range: 'all', mode: 'position', ke: 500, kd: 10 },
      { op: 'set_joint_targets', range: 'head:6', mode: 'none', ke: 0, kd: 0 },
      { op: 'set_joint_targets', joint: 'j1', ke: 100 },
      { op: 'set_joint_targets', joints: ['j2', 'arm/j3'], kd: 3 },
      { op: 'set_joint_targets', label_prefix: 'arm/j4', mode: 'velocity', ke: 9, kd: 4 },
      { op: 'set_joint_targets', match: 'j3', mode: 1 },
    ]);
    expect(arr(s.model.joint_target_ke)).toEqual([0, 0, 0, 0, 0, 0, 100, 500, 500, 0]);
    expect(arr(s.model.joint_target_kd)).toEqual([0, 0, 0, 0, 0, 0, 10, 3, 3, 4]);
    expect(arr(s.joint_target_mode)).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 2]);
    expect(s.warnings.join('\n')).toMatch(/arm\/j4' DOF 0: target mode 'velocity' overrides gains ke 9 → 0/);
  });

  it('joint references: id, exact label, suffix after "/", and errors', () => {
    const s = withOps([{ op: 'set_joint_armature', joint_label: 'j2', value: 0.7 }]);
    expect(s.model.joint_armature[7]).toBe(0.7);
    expect(catchErr(() => withOps([{ op: 'set_joint_armature', joint: 'j9', value: 1 }])).path).toBe(
      'post_build[0].joint',
    );
    expect(
      catchErr(() => withOps([{ op: 'set_joint_armature', joint_label: 'base2', value: 1 }])).reason,
    ).toMatch(/unknown joint 'base2'; known: base, arm\/j1/);
    expect(catchErr(() => withOps([{ op: 'set_joint_armature', label_prefix: 'leg', value: 1 }])).path).toBe(
      'post_build[0].label_prefix',
    );
    const lenient = loadScene(
      { ...chainScene(5), post_build: [{ op: 'set_joint_armature', match: 'leg', value: 1 }] },
      { strict: false },
    );
    expect(lenient.warnings).toEqual(["post_build[0].match: no joint label contains 'leg'"]);
  });

  it('set_joint_armature, set_joint_q and copy_joint_q_to_joint_targets', () => {
    const s = withOps([
      { op: 'set_joint_armature', range: 'from:6', value: 0.02 },
      { op: 'set_joint_q', joint: 'j1', value: 'pi / 4' },
      { op: 'set_joint_q', joint: 'base', offset: 2, value: 3 },
      { op: 'set_joint_q', index: -1, value: -0.5 },
      { op: 'copy_joint_q_to_joint_targets' },
    ]);
    expect(arr(s.model.joint_armature)).toEqual([0, 0, 0, 0, 0, 0, 0.02, 0.02, 0.02, 0.02]);
    expect(s.model.joint_q0[2]).toBe(3);
    expect(arr(s.model.joint_q0.subarray(7))).toEqual([Math.PI / 4, 0, 0, -0.5]);
    expect(arr(s.model.joint_target_pos)).toEqual([0, 0, 0, 0, 0, 0, Math.PI / 4, 0, 0, -0.5]);
  });

  it('initial_joint_q runs before post_build', () => {
    const s = withOps([{ op: 'copy_joint_q_to_joint_targets', joint: 'j2' }], {
      initial_joint_q: [{ joint: 'j2', value: 0.25 }],
    });
    expect(s.model.joint_target_pos[7]).toBe(0.25);
  });
});

describe('shape and builder operations', () => {
  it('shape arrays, flags and collision groups', () => {
    const s = withOps([
      { op: 'set_array', array: 'shape_margin', range: 'all', value: 0.001 },
      { op: 'set_array', array: 'shape_gap', index: 0, value: 0.01 },
      { op: 'set_array', array: 'shape_material_mu', range: 'tail:2', values: [0.2, 0.3] },
      { op: 'set_array', array: 'shape_material_ke', index: 1, value: 1234 },
      { op: 'set_array', array: 'shape_material_tau', index: 1, value: 0.05 },
      { op: 'set_array', array: 'shape_collision_group', index: 2, value: -3 },
      { op: 'set_array', array: 'shape_flags', index: 3, value: 1 },
    ]);
    const m = s.model;
    expect(arr(m.shape_margin)).toEqual([0.001, 0.001, 0.001, 0.001, 0.001]);
    expect(m.shape_gap[0]).toBe(0.01);
    // unauthored μ is NaN in the model ("none"); collision takes fallback_mu (default 0.5) for it
    expect(arr(m.shape_mu)).toEqual([NaN, NaN, NaN, 0.2, 0.3]);
    expect(arr(shapeMaterialFallback(m).mu)).toEqual([0.5, 0.5, 0.5, 0.2, 0.3]);
    expect([m.shape_ke[1], m.shape_tau[1]]).toEqual([1234, 0.05]);
    expect(arr(m.shape_collision_group)).toEqual([1, 1, -3, 0, 1]);
    expect(m.shape_flags[3]).toBe(1);
    const e = catchErr(() =>
      withOps([{ op: 'set_array', array: 'shape_material_restitution', index: 0, value: 0.5 }]),
    );
    expect(e).toBeInstanceOf(SceneUnsupportedError);
  });

  it('set_attr, scale_sphere_shapes, add_shape and approximate_meshes', () => {
    const s = withOps([
      { op: 'add_shape', body: 'l0', shape: { type: 'sphere', radius: 0.1, transform: { p: [0, 0, 0.2] } } },
      { op: 'add_shape', shape: { type: 'sphere', radius: 0.2, cfg: { density: 0 } } },
      { op: 'scale_sphere_shapes', factor: 2 },
      { op: 'set_attr', name: 'gravity', value: -3.71 },
      { op: 'approximate_meshes', method: 'bounding_box' },
    ]);
    const m = s.model;
    expect(m.shape_count).toBe(7);
    expect(arr(m.shape_type.subarray(5))).toEqual([ShapeType.SPHERE, ShapeType.SPHERE]);
    expect([m.shape_size[5 * 3], m.shape_size[6 * 3]]).toEqual([0.2, 0.4]);
    expect(m.shape_body[5]).toBe(s.body_ids.l0);
    expect(m.shape_body[6]).toBe(-1);
    expect(m.shape_world[6]).toBe(0);
    expect(arr(m.gravity)).toEqual([0, 0, -3.71]);
    expect(s.warnings).toEqual(['post_build[4]: no mesh shapes; nothing to approximate']);
    // the scaled sphere adds mass to l0: (4/3)π 0.2³ × 500
    const box = 500 * 8 * 0.05 * 0.05 * 0.1;
    expect(m.body_mass[s.body_ids.l0]).toBeCloseTo(box + (4 / 3) * Math.PI * 0.2 ** 3 * 500, 10);
    expect(arr(withOps([{ op: 'set_attr', name: 'gravity', value: [1, 2, '-pi'] }]).model.gravity)).toEqual([
      1,
      2,
      -Math.PI,
    ]);
  });

  it('edits made before replication appear in every world', () => {
    const s = loadScene(
      {
        ...chainScene(3),
        post_build: [{ op: 'set_joint_targets', joint: 'j2', mode: 'position', ke: 42, kd: 1 }],
      },
      { num_worlds: 3 },
    );
    const dofsPerWorld = 6 + 2;
    for (let w = 0; w < 3; w++) {
      expect(s.model.joint_target_ke[w * dofsPerWorld + 7]).toBe(42);
      expect(s.joint_target_mode[w * dofsPerWorld + 7]).toBe(1);
    }
  });
});

describe('builder defaults, aliases and transforms', () => {
  it('applies defaults.shape aliases, body-level material and shape cfg precedence', () => {
    const doc = chainScene(2) as any;
    doc.builder = {
      gravity: [0, 0, -1],
      rigid_gap: 0.004,
      default_body_armature: 0.001,
      defaults: {
        shape: { density: 100, shape_ke: 2e5, relaxation_time: 0.02, shape_mu: 0.9, contact_margin: 0.001 },
        joint: { armature: 0.05, target_ke: 10, axis: 'z', limit_ke: 7 },
      },
    };
    doc.bodies[0].mu = 0.4;
    doc.bodies[0].physics = { shape_gap: 0.01 };
    doc.bodies[0].shapes[0].cfg = { mu: 0.3 };
    delete doc.joints[1].axis;
    const s = loadScene(doc);
    const m = s.model;
    expect(arr(m.gravity)).toEqual([0, 0, -1]);
    expect([m.shape_ke[0], m.shape_tau[0], m.shape_margin[0]]).toEqual([2e5, 0.02, 0.001]);
    expect([m.shape_mu[0], m.shape_gap[0]]).toEqual([0.3, 0.01]);
    expect([m.shape_mu[1], m.shape_gap[1]]).toEqual([0.9, 0.004]);
    expect(m.body_mass[0]).toBeCloseTo(100 * 8 * 0.05 * 0.05 * 0.1, 12);
    expect(arr(m.joint_axis.subarray(3, 6))).toEqual([0, 0, 1]);
    expect(arr(m.joint_armature)).toEqual([0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05]);
    expect(m.joint_limit_ke[6]).toBe(7);
    expect(s.joint_target_mode[6]).toBe(1);
    doc.bodies[0].shapes[0].cfg = { mu: 0.3, shape_mu: 0.2 };
    expect(catchErr(() => loadScene(doc))).toMatchObject({ path: 'bodies[0].shapes[0].cfg.shape_mu' });
  });

  it('transforms: identity, [x,y,z,w] (normalized), axis_angle with token axes; axis tokens', () => {
    const doc = chainScene(3) as any;
    doc.bodies[0].transform = { p: [1, 2, 3], q: { axis_angle: { axis: '-z', angle: 'pi / 2' } } };
    doc.joints[1].parent_xform = { p: [0, 0, 0.15], q: [0, 0, 0, 2] };
    doc.joints[1].axis = '-x';
    doc.joints[2].axis = 1;
    doc.joints[2].child_xform = 'identity';
    const m = loadScene(doc).model;
    const q0 = arr(m.joint_q0.subarray(0, 7));
    expect(q0.slice(0, 3)).toEqual([1, 2, 3]);
    expect(q0[5]).toBeCloseTo(-Math.SQRT1_2, 15);
    expect(q0[6]).toBeCloseTo(Math.SQRT1_2, 15);
    expect(arr(m.joint_X_p.subarray(7 + 3, 14))).toEqual([0, 0, 0, 1]);
    expect(arr(m.joint_axis.subarray(3, 9))).toEqual([-1, 0, 0, 0, 1, 0]);
    expect(arr(m.joint_X_c.subarray(14, 21))).toEqual([0, 0, 0, 0, 0, 0, 1]);
    doc.joints[1].parent_xform.q = [0, 0, 0, 0];
    expect(catchErr(() => loadScene(doc)).path).toBe('joints[1].parent_xform.q');
  });

  it('ground forms', () => {
    const doc = chainScene(2) as any;
    doc.ground = true;
    expect(loadScene(doc).model.shape_count).toBe(3);
    doc.ground = { enabled: false };
    expect(loadScene(doc).model.shape_count).toBe(2);
    delete doc.ground;
    expect(loadScene(doc).model.shape_label[2]).toBe('ground');
    doc.ground = { label: 'floor', cfg: { mu: 0.2, has_shape_collision: false } };
    const m = loadScene(doc).model;
    expect([m.shape_label[2], m.shape_mu[2], m.shape_collision_group[2]]).toEqual(['floor', 0.2, 0]);
  });
});

describe('target modes as an array', () => {
  it('joint_target_mode reads implied modes and can be written and copied', () => {
    const s = withOps([
      { op: 'set_array', array: 'joint_target_ke', range: 'from:6', value: 5 },
      { op: 'copy_array', src: 'joint_target_mode', dst: 'joint_target_vel', range: 'from:6' },
      { op: 'set_array', array: 'joint_target_mode', index: -1, value: 0 },
    ]);
    expect(arr(s.model.joint_target_vel.subarray(6))).toEqual([1, 1, 1, 1]);
    expect(arr(s.joint_target_mode)).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 0]);
    expect(arr(s.model.joint_target_ke)).toEqual([0, 0, 0, 0, 0, 0, 5, 5, 5, 0]);
    expect(
      catchErr(() => withOps([{ op: 'set_array', array: 'joint_target_mode', index: 0, value: 7 }])).reason,
    ).toMatch(/must be 0\.\.4/);
  });
});
