import { describe, expect, it } from 'vitest';
import { ModelBuilder } from '../../model';
import { importUsd } from './physics';
import { memResolver } from './testing';
import { UsdList, type UsdValue } from './values';
import { decompose, localXform, mat4Mul, mat4Point, opMatrix, poseOf, type Mat4 } from './xform';

const close = (a: ArrayLike<number>, b: ArrayLike<number>, tol = 1e-12) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(tol);
};
const c = Math.SQRT1_2;

describe('xformOps', () => {
  it('builds each op matrix as by hand (column-vector convention)', () => {
    close(opMatrix('xformOp:translate', [1, 2, 3])!, [1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1]);
    close(opMatrix('xformOp:scale:s', [2, 3, 4])!, [2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 1]);
    // rotateZ 90°: x → y
    close(mat4Point(opMatrix('xformOp:rotateZ', 90)!, 1, 0, 0), [0, 1, 0]);
    // rotateX 90°: y → z
    close(mat4Point(opMatrix('xformOp:rotateX', 90)!, 0, 1, 0), [0, 0, 1]);
    // orient is (w, x, y, z): 90° about z
    close(mat4Point(opMatrix('xformOp:orient', [c, 0, 0, c])!, 1, 0, 0), [0, 1, 0]);
    // rotateXYZ applies X first, then Y, then Z: (90, 90, 0) sends y → z → -x
    const r = opMatrix('xformOp:rotateXYZ', [90, 90, 0])!;
    close(mat4Point(r, 0, 1, 0), [1, 0, 0]); // y →(X90) z →(Y90) x
    const r2 = opMatrix('xformOp:rotateZYX', [90, 90, 0])!; // Z first (0), then Y 90, then X 90
    close(mat4Point(r2, 1, 0, 0), [0, 1, 0]); // x →(Y90) -z →(X90) y
    // transform is written row-vector (translation in the last row)
    close(
      mat4Point(opMatrix('xformOp:transform', [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 5, 6, 7, 1])!, 1, 0, 0),
      [5, 7, 7],
    );
    expect(opMatrix('xformOp:bogus', 1)).toBeNull();
  });

  it('composes xformOpOrder (T·R·S), !invert! and !resetXformStack!', () => {
    const attrs: Record<string, UsdValue> = {
      'xformOp:translate': [1, 0, 0],
      'xformOp:rotateZ': 90,
      'xformOp:scale': [2, 2, 2],
      'xformOp:translate:pivot': [0, 1, 0],
      xformOpOrder: new UsdList(['xformOp:translate', 'xformOp:rotateZ', 'xformOp:scale']),
    };
    const get = (n: string) => attrs[n];
    const { m, reset } = localXform(get);
    expect(reset).toBe(false);
    // p = (1,0,0): scale → (2,0,0), rotate → (0,2,0), translate → (1,2,0)
    close(mat4Point(m, 1, 0, 0), [1, 2, 0]);
    attrs.xformOpOrder = new UsdList([
      'xformOp:translate:pivot',
      'xformOp:rotateZ',
      '!invert!xformOp:translate:pivot',
    ]);
    // rotation about the pivot (0,1,0): (0,1,0) stays
    close(mat4Point(localXform(get).m, 0, 1, 0), [0, 1, 0]);
    close(mat4Point(localXform(get).m, 1, 1, 0), [0, 2, 0]);
    attrs.xformOpOrder = new UsdList(['!resetXformStack!', 'xformOp:translate']);
    const r = localXform(get);
    expect(r.reset).toBe(true);
    close(mat4Point(r.m, 0, 0, 0), [1, 0, 0]);
    const issues: { op: string; reason: string }[] = [];
    attrs.xformOpOrder = new UsdList(['xformOp:missing']);
    localXform(get, issues);
    expect(issues[0].op).toBe('xformOp:missing');
  });

  it('decomposes T·R·S matrices', () => {
    const M: Mat4 = mat4Mul(
      mat4Mul(opMatrix('xformOp:translate', [1, 2, 3])!, opMatrix('xformOp:orient', [c, c, 0, 0])!),
      opMatrix('xformOp:scale', [2, 3, 4])!,
    );
    const d = decompose(M);
    close(d.t, [1, 2, 3]);
    close(d.s, [2, 3, 4]);
    close(poseOf(M).slice(3), [Math.SQRT1_2, 0, 0, Math.SQRT1_2], 1e-12);
    expect(d.shear).toBeLessThan(1e-12);
  });
});

describe('unit and axis conversion in the importer', () => {
  const yUpCm = `#usda 1.0
(
    upAxis = "Y"
    metersPerUnit = 0.01
    kilogramsPerUnit = 1
)
def PhysicsScene "scene" {}
def Xform "World" {
    def Xform "body" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] )
    {
        double3 xformOp:translate = (0, 100, 0)
        quatf xformOp:orient = (0.70710678, 0, 0.70710678, 0)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]
        float physics:mass = 2
        float3 physics:diagonalInertia = (100, 200, 300)
        point3f physics:centerOfMass = (0, 10, 0)
        def Cube "box" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) {
            double size = 10
            float3 xformOp:scale = (1, 2, 1)
            uniform token[] xformOpOrder = ["xformOp:scale"]
        }
        def Capsule "cap" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) {
            uniform token axis = "X"
            double radius = 2
            double height = 6
            double3 xformOp:translate = (0, 0, 20)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
    }
    def PhysicsPrismaticJoint "slide" {
        rel physics:body1 = </World/body>
        uniform token physics:axis = "Y"
        point3f physics:localPos0 = (0, 100, 0)
        float physics:lowerLimit = -50
        float physics:upperLimit = 25
    }
}
`;

  it('converts a Y-up centimetre stage to z-up metres', async () => {
    const b = new ModelBuilder();
    const r = await importUsd(b, 'root.usda', memResolver({ 'root.usda': yUpCm }), { apply_gravity: true });
    expect(r.stage).toMatchObject({ upAxis: 'Y', metersPerUnit: 0.01 });
    // gravity: default magnitude 9.81 m/s² along −up, rotated to −z
    close(r.gravity!, [0, 0, -9.81], 1e-12);
    close(b.gravity, [0, 0, -9.81], 1e-12);
    const body = b.bodies[r.bodies[0]];
    // stage (0, 100, 0) cm, Y up → (0, 0, 1) m
    close(body.X_wb.slice(0, 3), [0, 0, 1], 1e-12);
    // inertia scales by m² (cm² → m²): 100 kg·cm² = 0.01 kg·m²
    expect(body.mass).toBe(2);
    const I = body.inertia!;
    expect(I[0] + I[4] + I[8]).toBeCloseTo((100 + 200 + 300) * 1e-4, 12);
    // centre of mass: 10 cm along the body's own y
    expect(Math.hypot(...body.com!)).toBeCloseTo(0.1, 12);
    const box = b.shapes[r.shapes[0]];
    close(box.size, [0.05, 0.1, 0.05], 1e-12);
    const cap = b.shapes[r.shapes[1]];
    close(cap.size.slice(0, 2), [0.02, 0.03], 1e-12);
    // the capsule's axis (local z of the shape) is the prim's x axis, in the body frame
    const q = cap.X_bs.slice(3);
    const zAxis = [
      2 * (q[0] * q[2] + q[3] * q[1]),
      2 * (q[1] * q[2] - q[3] * q[0]),
      1 - 2 * (q[0] * q[0] + q[1] * q[1]),
    ];
    close(zAxis.map(Math.abs), [1, 0, 0], 1e-9);
    close(cap.X_bs.slice(0, 3), [0, 0, 0.2], 1e-12);
    // prismatic limits in metres; the world frame is converted too
    const j = b.joints[r.joints[0]];
    expect(j.dof.limit_lower).toBeCloseTo(-0.5, 12);
    expect(j.dof.limit_upper).toBeCloseTo(0.25, 12);
    close(j.X_p.slice(0, 3), [0, 0, 1], 1e-12);
    // the joint axis: stage y = model z, expressed in the (rotated) joint frame
    expect(j.axis).toEqual([0, 1, 0]);
  });

  it('keeps a Y-up stage when apply_up_axis is false, and applies the root xform', async () => {
    const b = new ModelBuilder();
    const r = await importUsd(b, 'root.usda', memResolver({ 'root.usda': yUpCm }), {
      apply_up_axis: false,
      xform: [1, 2, 3, 0, 0, 0, 1],
    });
    close(b.bodies[r.bodies[0]].X_wb.slice(0, 3), [1, 3, 3], 1e-12);
  });
});
