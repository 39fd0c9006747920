import { describe, expect, it } from 'vitest';
import { ModelBuilder } from './builder';
import { meshMassProperties, shapeMassProperties } from './mass';
import { ShapeType } from './types';

/** a closed box mesh with half extents (a, b, c), outward counter-clockwise faces */
function boxMesh(a: number, b: number, c: number) {
  const v: number[] = [];
  for (const z of [-c, c]) for (const y of [-b, b]) for (const x of [-a, a]) v.push(x, y, z);
  const quads = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
  ];
  const t: number[] = [];
  for (const [p, q, r, s] of quads) t.push(p, q, r, p, r, s);
  return { vertices: v, triangles: t };
}

describe('mass properties', () => {
  it('a box mesh has the analytic box mass and inertia', () => {
    const { vertices, triangles } = boxMesh(0.3, 0.2, 0.1);
    const mp = meshMassProperties(vertices, triangles, [1, 1, 1], 500);
    const ref = shapeMassProperties(ShapeType.BOX, [0.3, 0.2, 0.1], 500);
    expect(mp.mass).toBeCloseTo(ref.mass, 10);
    for (let k = 0; k < 3; k++) {
      expect(mp.inertia[k]).toBeCloseTo(ref.inertia[k], 10);
      expect(Math.abs(mp.com[k])).toBeLessThan(1e-12);
      expect(Math.abs(mp.products[k])).toBeLessThan(1e-12);
    }
  });

  it('scaling and an offset mesh: COM moves, inertia about the COM is unchanged', () => {
    const { vertices, triangles } = boxMesh(0.5, 0.5, 0.5);
    const shifted = vertices.map((x, i) => x + (i % 3 === 0 ? 2 : 0));
    const mp = meshMassProperties(shifted, triangles, [0.6, 0.4, 0.2], 1000);
    const ref = shapeMassProperties(ShapeType.BOX, [0.3, 0.2, 0.1], 1000);
    expect(mp.mass).toBeCloseTo(ref.mass, 10);
    expect(mp.com[0]).toBeCloseTo(1.2, 12);
    for (let k = 0; k < 3; k++) expect(mp.inertia[k]).toBeCloseTo(ref.inertia[k], 10);
  });

  it('a capsule body combines a cylinder and two hemispheres (volume check)', () => {
    const r = 0.1,
      h = 0.3;
    const mp = shapeMassProperties(ShapeType.CAPSULE, [r, h, 0], 1);
    expect(mp.mass).toBeCloseTo(Math.PI * r * r * 2 * h + (4 / 3) * Math.PI * r ** 3, 12);
  });
});

describe('ModelBuilder', () => {
  it('orders joints parent-first per tree, maps bodies to joints, replicates worlds with offsets', () => {
    const b = new ModelBuilder();
    const a = b.addBody({ label: 'a', X_wb: [0, 0, 1, 0, 0, 0, 1] });
    const c = b.addBody({ label: 'c', X_wb: [0, 0, 0.5, 0, 0, 0, 1] });
    b.addShape({ body: a, type: 'sphere', size: [0.1, 0, 0] });
    b.addShape({ body: c, type: 'sphere', size: [0.1, 0, 0] });
    // child authored before its parent's joint
    b.addJoint({ type: 'revolute', parent: a, child: c, axis: [0, 1, 0], label: 'elbow' });
    b.addJoint({
      type: 'revolute',
      parent: -1,
      child: a,
      axis: [0, 1, 0],
      X_p: [0, 0, 1, 0, 0, 0, 1],
      label: 'shoulder',
    });
    b.num_worlds = 3;
    b.spacing = [2, 0, 0];
    const m = b.finalize();
    expect(m.joint_count).toBe(6);
    expect(m.joint_label.slice(0, 2)).toEqual(['shoulder', 'elbow']);
    expect(m.body_label.slice(0, 2)).toEqual(['a', 'c']);
    expect(m.joint_parent[1]).toBe(0);
    expect(m.tree_count).toBe(3);
    expect(Array.from(m.world_dof_start)).toEqual([0, 2, 4, 6]);
    expect([m.joint_X_p[0], m.joint_X_p[14], m.joint_X_p[28]]).toEqual([-2, 0, 2]);
  });

  it('rejects bad input with the entity path', () => {
    const b = new ModelBuilder();
    const a = b.addBody();
    expect(() => b.addJoint({ type: 'free', parent: 0, child: a })).toThrow(/joints\[0\]\.parent/);
    expect(() => b.addShape({ body: 5, type: 'sphere', size: [1, 0, 0] })).toThrow(/shapes\[0\]\.body/);
    expect(() => b.addShape({ body: a, type: 'mesh', size: [1, 1, 1] })).toThrow(/mesh/);
    expect(() => b.addMesh({ vertices: [0, 0, 0], triangles: [0, 0, 1] })).toThrow(/outside/);
  });

  it('textured meshes: images once, coordinates per vertex, bad ones rejected with the entity path', () => {
    const b = new ModelBuilder();
    const tri = { vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0], triangles: [0, 1, 2] };
    const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]);
    expect(() => b.addTexture({ mime: 'text/plain', bytes: jpeg })).toThrow(/textures\[0\]\.mime/);
    expect(() => b.addTexture({ mime: 'image/jpeg', bytes: new Uint8Array(0) })).toThrow(
      /textures\[0\]\.bytes/,
    );
    const t = b.addTexture({ mime: 'image/jpeg', bytes: jpeg, label: 'skin.jpg' });
    expect(() => b.addMesh({ ...tri, uv: [0, 0, 1, 0] })).toThrow(/meshes\[0\]\.uv.*6/);
    expect(() => b.addMesh({ ...tri, uv: [0, 0, 1, 0, 0, NaN] })).toThrow(/meshes\[0\]\.uv/);
    expect(() => b.addMesh({ ...tri, texture: t })).toThrow(/needs uv/);
    expect(() => b.addMesh({ ...tri, uv: [0, 0, 1, 0, 0, 1], texture: 1 })).toThrow(/meshes\[0\]\.texture/);
    const plain = b.addMesh(tri);
    const textured = b.addMesh({ ...tri, uv: [0, 0, 1, 0, 0, 1], texture: t });
    const m = b.finalize();
    expect(m.textures).toEqual([{ label: 'skin.jpg', mime: 'image/jpeg', bytes: jpeg }]);
    expect(Array.from(m.mesh_texture)).toEqual([-1, 0]);
    expect(m.mesh_uv[plain]).toBeNull();
    expect(Array.from(m.mesh_uv[textured]!)).toEqual([0, 0, 1, 0, 0, 1]);
  });

  it('meshes, heightfields, equalities and filter pairs reach the model (replicated per world)', () => {
    const b = new ModelBuilder();
    const { vertices, triangles } = boxMesh(0.1, 0.1, 0.1);
    const mesh = b.addMesh({ vertices, triangles, label: 'cube' });
    const hf = b.addHeightfield({ nrow: 2, ncol: 3, size: [1, 1, 0.2, 0.1], data: [0, 0.5, 1, 0, 0.5, 1] });
    const p = b.addBody({ label: 'p', X_wb: [0, 0, 1, 0, 0, 0, 1] });
    const q = b.addBody({ label: 'q', X_wb: [0, 0, 2, 0, 0, 0, 1] });
    const s0 = b.addShape({ body: p, type: 'convex_mesh', size: [1, 1, 1], mesh, cfg: { density: 1000 } });
    const s1 = b.addShape({ body: q, type: 'sphere', size: [0.1, 0, 0] });
    b.addShape({ body: -1, type: 'heightfield', size: [1, 1, 1], hfield: hf });
    b.addFilterPair(s0, s1);
    b.addEquality({ type: 'weld', body0: p, body1: q });
    b.num_worlds = 2;
    const m = b.finalize();
    expect(m.mesh_count).toBe(1);
    expect(m.body_mass[0]).toBeCloseTo(1000 * 0.008, 10);
    expect(m.shape_mesh[0]).toBe(0);
    expect(m.shape_hfield[2]).toBe(0);
    expect(Array.from(m.shape_filter_pairs)).toEqual([0, 1, 3, 4]);
    expect(m.eq_count).toBe(2);
    expect(Array.from(m.eq_body0)).toEqual([0, 2]);
    expect(m.eq_relpose[2]).toBeCloseTo(1, 12); // q sits 1 m above p
  });
});
