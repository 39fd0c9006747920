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

/**
 * Mass properties of a closed triangle mesh of uniform density, scaled per axis, by the divergence
 * theorem over signed tetrahedra (origin, triangle). Returns the inertia about the COM; principal
 * moments are not enough for a general mesh, so `inertia` here is the full tensor's diagonal and
 * `products` its off-diagonal entries [Ixy, Ixz, Iyz]. An open or inside-out mesh yields |volume|.
 */
export function meshMassProperties(
  vertices: ArrayLike<number>,
  triangles: ArrayLike<number>,
  scale: ArrayLike<number>,
  density: number,
): MassProperties & { products: [number, number, number] } {
  const sx = scale[0] || 1,
    sy = scale[1] || 1,
    sz = scale[2] || 1;
  let vol = 0,
    cx = 0,
    cy = 0,
    cz = 0;
  // second moments ∫x², ∫y², ∫z², ∫xy, ∫xz, ∫yz about the origin
  let xx = 0,
    yy = 0,
    zz = 0,
    xy = 0,
    xz = 0,
    yz = 0;
  for (let t = 0; t < triangles.length; t += 3) {
    const a = triangles[t] * 3,
      b = triangles[t + 1] * 3,
      c = triangles[t + 2] * 3;
    const ax = vertices[a] * sx,
      ay = vertices[a + 1] * sy,
      az = vertices[a + 2] * sz;
    const bx = vertices[b] * sx,
      by = vertices[b + 1] * sy,
      bz = vertices[b + 2] * sz;
    const qx = vertices[c] * sx,
      qy = vertices[c + 1] * sy,
      qz = vertices[c + 2] * sz;
    const d = ax * (by * qz - bz * qy) - ay * (bx * qz - bz * qx) + az * (bx * qy - by * qx); // 6·signed volume
    vol += d / 6;
    cx += (d * (ax + bx + qx)) / 24;
    cy += (d * (ay + by + qy)) / 24;
    cz += (d * (az + bz + qz)) / 24;
    // ∫ over the tetrahedron (0, a, b, c) of u·v = d/120 · (Σ u_i v_i + Σ_i u_i Σ_j v_j) with the 0 vertex
    const f = (u0: number, u1: number, u2: number, v0: number, v1: number, v2: number) =>
      (d / 120) * (u0 * v0 + u1 * v1 + u2 * v2 + (u0 + u1 + u2) * (v0 + v1 + v2));
    xx += f(ax, bx, qx, ax, bx, qx);
    yy += f(ay, by, qy, ay, by, qy);
    zz += f(az, bz, qz, az, bz, qz);
    xy += f(ax, bx, qx, ay, by, qy);
    xz += f(ax, bx, qx, az, bz, qz);
    yz += f(ay, by, qy, az, bz, qz);
  }
  const sign = vol < 0 ? -1 : 1;
  vol *= sign;
  if (!(vol > 0) || !(density > 0))
    return { mass: 0, com: [0, 0, 0], inertia: [0, 0, 0], products: [0, 0, 0] };
  const mass = density * vol;
  const com: [number, number, number] = [(sign * cx) / vol, (sign * cy) / vol, (sign * cz) / vol];
  const r = density * sign;
  // shift second moments to the COM
  const Sxx = r * xx - mass * com[0] * com[0],
    Syy = r * yy - mass * com[1] * com[1],
    Szz = r * zz - mass * com[2] * com[2];
  const Sxy = r * xy - mass * com[0] * com[1],
    Sxz = r * xz - mass * com[0] * com[2],
    Syz = r * yz - mass * com[1] * com[2];
  return {
    mass,
    com,
    inertia: [Syy + Szz, Sxx + Szz, Sxx + Syy],
    products: [-Sxy, -Sxz, -Syz],
  };
}
