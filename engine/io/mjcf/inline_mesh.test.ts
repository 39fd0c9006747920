/**
 * MJCF meshes written inline: `<mesh vertex="…"/>` without `face` is the convex hull of its vertices
 * (as MuJoCo compiles it), so it is drawn, collides and weighs as that hull; with `face` the
 * triangles are used as written.
 */
import { describe, expect, it } from 'vitest';
import { ModelBuilder } from '../../model';
import { ImportError } from '../assets/errors';
import { MemoryResolver } from '../assets/resolvers';
import { importMjcf } from './mjcf';

// a 0.2 × 0.4 × 0.6 box's corners plus a point inside it (not a hull vertex)
const corners: number[] = [];
for (const x of [-0.1, 0.1]) for (const y of [-0.2, 0.2]) for (const z of [-0.3, 0.3]) corners.push(x, y, z);
const xml = (mesh: string) => `<mujoco>
  <asset>${mesh}</asset>
  <worldbody>
    <body name="chassis" pos="0 0 1"><freejoint/><geom type="mesh" mesh="m"/></body>
  </worldbody>
</mujoco>`;

async function load(mesh: string) {
  const b = new ModelBuilder();
  const r = await importMjcf(b, { text: xml(mesh), path: 'car.xml' }, { resolver: new MemoryResolver({}) });
  return { b, r, m: b.finalize() };
}

describe('inline MJCF meshes', () => {
  it('vertices without faces become their convex hull: drawn, and weighed as the hull', async () => {
    const { m } = await load(`<mesh name="m" vertex="${[...corners, 0.01, 0.02, 0.03].join(' ')}"/>`);
    expect(m.mesh_count).toBeGreaterThan(0);
    // a box hull: 8 vertices (the inner point dropped), 12 triangles
    const tris = Array.from(
      { length: m.mesh_count },
      (_, k) => m.mesh_triangle_start[k + 1] - m.mesh_triangle_start[k],
    );
    const verts = Array.from(
      { length: m.mesh_count },
      (_, k) => m.mesh_vertex_start[k + 1] - m.mesh_vertex_start[k],
    );
    expect(tris.every((t) => t === 12)).toBe(true);
    expect(verts.every((v) => v === 8)).toBe(true);
    // MuJoCo's default density 1000 kg/m³ over the hull's volume 0.048 m³
    expect(m.body_mass[0]).toBeCloseTo(48, 9);
    // a box's inertia about its centre: m/12 (b² + c²), …
    expect(m.body_inertia[0]).toBeCloseTo((48 / 12) * (0.4 ** 2 + 0.6 ** 2), 9);
  });
  it('flat vertices without faces are a located error', async () => {
    await expect(load(`<mesh name="m" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>`)).rejects.toThrow(ImportError);
    await expect(load(`<mesh name="m" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>`)).rejects.toThrow(/convex hull/);
  });
});
