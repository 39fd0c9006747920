/**
 * A USD body whose visual meshes cannot be drawn (a missing payload leaves a Mesh prim without
 * points) shows its colliders instead, with a warning, as URDF links do; a body whose visual draws
 * keeps its colliders hidden.
 */
import { describe, expect, it } from 'vitest';
import { ModelBuilder } from '../../model';
import { importUsd } from './physics';
import { memResolver } from './testing';

const text = `#usda 1.0
(
    upAxis = "Z"
    metersPerUnit = 1
)
def Xform "R" {
    def Xform "drawn" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
        double3 xformOp:translate = (0, 0, 1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Cube "collider" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { double size = 0.2 }
        def Mesh "look" {
            point3f[] points = [(0, 0, 0), (0.1, 0, 0), (0, 0.1, 0)]
            int[] faceVertexCounts = [3]
            int[] faceVertexIndices = [0, 1, 2]
        }
    }
    def Xform "lost" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
        double3 xformOp:translate = (1, 0, 1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Cube "collider" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { double size = 0.2 }
        def Mesh "look" {
            int[] faceVertexCounts = [3]
            int[] faceVertexIndices = [0, 1, 2]
        }
    }
}
`;

async function load(opts = {}) {
  const b = new ModelBuilder();
  const r = await importUsd(b, 'x.usda', memResolver({ 'x.usda': text }), opts);
  const colliderOf = (body: string) =>
    r.shapes.map((s) => b.shapes[s]).find((s) => s.cfg.has_shape_collision && s.body === b.findBody(body))!;
  return { r, colliderOf };
}

describe('USD bodies whose visuals cannot be drawn', () => {
  it('show their colliders instead, and say so', async () => {
    const { r, colliderOf } = await load();
    expect(colliderOf('lost').cfg.is_visible).toBe(true);
    expect(colliderOf('drawn').cfg.is_visible).toBe(false);
    const warning = r.warnings.find((w) => w.includes('collision shapes are shown instead'));
    expect(warning).toContain('/R/lost');
    expect(warning).not.toContain('/R/drawn');
  });
  it('keep them hidden when the caller hides colliders', async () => {
    const { colliderOf } = await load({ hide_collision_shapes: true });
    expect(colliderOf('lost').cfg.is_visible).toBe(false);
  });
});
