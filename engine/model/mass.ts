/**
 * Mass properties of primitive shapes of uniform density: mass [kg], centre of mass in the shape
 * frame [m] and rotational inertia about that centre in the shape frame [kg·m²] (diagonal).
 */
import { ShapeType } from './types';

export interface MassProperties {
  mass: number;
  com: [number, number, number];
  /** principal moments (the inertia is diagonal in the shape frame) */
  inertia: [number, number, number];
}

/** mass properties of one primitive; planes, meshes and heightfields have none (mass 0) */
export function shapeMassProperties(type: number, size: ArrayLike<number>, density: number): MassProperties {
  const none: MassProperties = { mass: 0, com: [0, 0, 0], inertia: [0, 0, 0] };
  if (!(density > 0)) return none;
  const [a, b, c] = [size[0], size[1], size[2]];
  switch (type) {
    case ShapeType.SPHERE: {
      const m = (density * 4 * Math.PI * a ** 3) / 3;
      const i = 0.4 * m * a * a;
      return { mass: m, com: [0, 0, 0], inertia: [i, i, i] };
    }
    case ShapeType.BOX: {
      const m = density * 8 * a * b * c;
      return {
        mass: m,
        com: [0, 0, 0],
        inertia: [(m * (b * b + c * c)) / 3, (m * (a * a + c * c)) / 3, (m * (a * a + b * b)) / 3],
      };
    }
    case ShapeType.CAPSULE: {
      // a cylinder of length 2h plus two hemispheres whose centroids sit 3r/8 beyond its ends
      const r = a,
        h = b;
      const mc = density * Math.PI * r * r * 2 * h;
      const ms = (density * 4 * Math.PI * r ** 3) / 3;
      const izz = (mc * r * r) / 2 + 0.4 * ms * r * r;
      const ixx = mc * ((r * r) / 4 + (4 * h * h) / 12) + ms * (0.4 * r * r + h * h + 0.75 * h * r);
      return { mass: mc + ms, com: [0, 0, 0], inertia: [ixx, ixx, izz] };
    }
    case ShapeType.CYLINDER: {
      const r = a,
        h = b;
      const m = density * Math.PI * r * r * 2 * h;
      const ixx = (m * (3 * r * r + 4 * h * h)) / 12;
      return { mass: m, com: [0, 0, 0], inertia: [ixx, ixx, (m * r * r) / 2] };
    }
    case ShapeType.CONE: {
      // base at z = -h, apex at z = +h; the centroid lies a quarter of the height above the base
      const r = a,
        H = 2 * b;
      const m = (density * Math.PI * r * r * H) / 3;
      const ixx = m * ((3 * r * r) / 20 + (3 * H * H) / 80);
      return { mass: m, com: [0, 0, -b + H / 4], inertia: [ixx, ixx, 0.3 * m * r * r] };
    }
    case ShapeType.ELLIPSOID: {
      const m = (density * 4 * Math.PI * a * b * c) / 3;
      return {
        mass: m,
        com: [0, 0, 0],
        inertia: [(m * (b * b + c * c)) / 5, (m * (a * a + c * c)) / 5, (m * (a * a + b * b)) / 5],
      };
    }
    default:
      return none;
  }
}
