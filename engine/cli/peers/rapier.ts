/**
 * Rapier peer (npm `@dimforge/rapier3d-compat`, the WebAssembly build with the binary inlined):
 * the same free rigid bodies (boxes, spheres, capsules, cylinders on a static plane), same masses
 * (collider density = body mass / shape volume), same friction, same dt, gravity, and state;
 * sleeping off. Only scenes whose bodies are all free single-shape bodies fit (piles); articulated
 * scenes are reported as not applicable.
 */
import { shapeMaterialFallback } from '../../collision/material';
import { JointType, ShapeType, type SapModel } from '../../model';
import type { SapState } from '../../state';

/** the parts of the Rapier module the bench uses (structural types, loaded lazily) */
interface Vec {
  x: number;
  y: number;
  z: number;
}
interface Quat extends Vec {
  w: number;
}
interface RigidBodyDesc {
  setTranslation(x: number, y: number, z: number): RigidBodyDesc;
  setRotation(q: Quat): RigidBodyDesc;
  setLinvel(x: number, y: number, z: number): RigidBodyDesc;
  setAngvel(v: Vec): RigidBodyDesc;
  setCanSleep(b: boolean): RigidBodyDesc;
}
interface ColliderDesc {
  setTranslation(x: number, y: number, z: number): ColliderDesc;
  setRotation(q: Quat): ColliderDesc;
  setFriction(mu: number): ColliderDesc;
  setDensity(rho: number): ColliderDesc;
}
interface Collider {
  handle: number;
}
interface RapierWorld {
  timestep: number;
  createRigidBody(d: RigidBodyDesc): unknown;
  createCollider(d: ColliderDesc, parent?: unknown): Collider;
  step(): void;
  contactPairsWith(c: Collider, f: (other: Collider) => void): void;
  contactPair(
    a: Collider,
    b: Collider,
    f: (manifold: { numContacts(): number }, flipped: boolean) => void,
  ): void;
  free(): void;
}
export interface RapierModule {
  init(): Promise<void>;
  version(): string;
  World: new (g: Vec) => RapierWorld;
  RigidBodyDesc: { dynamic(): RigidBodyDesc; fixed(): RigidBodyDesc };
  ColliderDesc: {
    cuboid(hx: number, hy: number, hz: number): ColliderDesc;
    ball(r: number): ColliderDesc;
    capsule(halfHeight: number, r: number): ColliderDesc;
    cylinder(halfHeight: number, r: number): ColliderDesc;
  };
}

let cached: Promise<RapierModule | string> | null = null;

/** the initialized Rapier module, or a string saying why it is unavailable */
export function loadRapier(): Promise<RapierModule | string> {
  if (!cached) {
    const spec = '@dimforge/rapier3d-compat';
    cached = import(/* @vite-ignore */ spec).then(
      async (mod: { default: RapierModule }) => {
        const R = mod.default;
        await R.init();
        return R;
      },
      (e: unknown) => `@dimforge/rapier3d-compat is not installed (${(e as Error).message})`,
    );
  }
  return cached;
}

/** why the model does not fit the Rapier peer, or null when it does */
export function rapierUnfit(m: SapModel): string | null {
  for (let j = 0; j < m.joint_count; j++) {
    if (m.body_world[j] !== 0) continue;
    if (m.joint_type[j] !== JointType.FREE || m.joint_parent[j] !== -1)
      return 'articulated (not free bodies)';
  }
  const perBody = new Int32Array(m.body_count);
  for (let g = 0; g < m.shape_count; g++) {
    const b = m.shape_body[g];
    const t = m.shape_type[g];
    if (b < 0) {
      if (t !== ShapeType.PLANE) return 'static shapes other than the ground plane';
      continue;
    }
    if (++perBody[b] > 1) return 'bodies with several shapes';
    if (t !== ShapeType.BOX && t !== ShapeType.SPHERE && t !== ShapeType.CAPSULE && t !== ShapeType.CYLINDER)
      return `shape type ${t}`;
  }
  return null;
}

/** a Rapier world equivalent to world 0 of the model at state `st` */
export function rapierWorld(
  R: RapierModule,
  m: SapModel,
  st: SapState,
  dt: number,
): { world: RapierWorld; colliders: Collider[] } {
  const world = new R.World({ x: m.gravity[0], y: m.gravity[1], z: m.gravity[2] });
  world.timestep = dt;
  const colliders: Collider[] = [];
  const shapeMu = shapeMaterialFallback(m).mu; // friction with the default fallbacks
  for (let g = 0; g < m.shape_count; g++) {
    const b = m.shape_body[g];
    if (b >= 0) continue;
    if (m.shape_world[g] > 0) continue;
    const X = m.shape_X_bs;
    const q = { x: X[g * 7 + 3], y: X[g * 7 + 4], z: X[g * 7 + 5], w: X[g * 7 + 6] };
    // the plane (normal = local +z) as a 100 m × 100 m × 2 m slab whose top face is the plane
    const n = rot(q, { x: 0, y: 0, z: 1 });
    const body = world.createRigidBody(
      R.RigidBodyDesc.fixed()
        .setTranslation(X[g * 7] - n.x, X[g * 7 + 1] - n.y, X[g * 7 + 2] - n.z)
        .setRotation(q),
    );
    colliders.push(world.createCollider(R.ColliderDesc.cuboid(50, 50, 1).setFriction(shapeMu[g]), body));
  }
  for (let g = 0; g < m.shape_count; g++) {
    const b = m.shape_body[g];
    if (b < 0 || m.body_world[b] !== 0) continue;
    const s = m.shape_size;
    let desc: ColliderDesc;
    let vol: number;
    switch (m.shape_type[g]) {
      case ShapeType.BOX:
        desc = R.ColliderDesc.cuboid(s[g * 3], s[g * 3 + 1], s[g * 3 + 2]);
        vol = 8 * s[g * 3] * s[g * 3 + 1] * s[g * 3 + 2];
        break;
      case ShapeType.SPHERE:
        desc = R.ColliderDesc.ball(s[g * 3]);
        vol = (4 / 3) * Math.PI * s[g * 3] ** 3;
        break;
      case ShapeType.CAPSULE:
        desc = R.ColliderDesc.capsule(s[g * 3 + 1], s[g * 3]);
        vol = Math.PI * s[g * 3] ** 2 * (2 * s[g * 3 + 1]) + (4 / 3) * Math.PI * s[g * 3] ** 3;
        break;
      default:
        desc = R.ColliderDesc.cylinder(s[g * 3 + 1], s[g * 3]);
        vol = Math.PI * s[g * 3] ** 2 * (2 * s[g * 3 + 1]);
    }
    const X = m.shape_X_bs;
    desc = desc
      .setTranslation(X[g * 7], X[g * 7 + 1], X[g * 7 + 2])
      .setRotation({ x: X[g * 7 + 3], y: X[g * 7 + 4], z: X[g * 7 + 5], w: X[g * 7 + 6] })
      .setFriction(shapeMu[g])
      .setDensity(m.body_mass[b] / vol);
    const P = st.body_q;
    const V = st.body_qd;
    const bd = R.RigidBodyDesc.dynamic()
      .setCanSleep(false)
      .setTranslation(P[b * 7], P[b * 7 + 1], P[b * 7 + 2])
      .setRotation({ x: P[b * 7 + 3], y: P[b * 7 + 4], z: P[b * 7 + 5], w: P[b * 7 + 6] })
      .setLinvel(V[b * 6], V[b * 6 + 1], V[b * 6 + 2])
      .setAngvel({ x: V[b * 6 + 3], y: V[b * 6 + 4], z: V[b * 6 + 5] });
    colliders.push(world.createCollider(desc, world.createRigidBody(bd)));
  }
  return { world, colliders };
}

/** contact points of the world's current manifolds */
export function rapierContactCount(world: RapierWorld, colliders: Collider[]): number {
  let n = 0;
  for (const c of colliders) {
    world.contactPairsWith(c, (o) => {
      if (o.handle > c.handle) world.contactPair(c, o, (man) => (n += man.numContacts()));
    });
  }
  return n;
}

function rot(q: Quat, v: Vec): Vec {
  // v' = v + 2w(u×v) + 2u×(u×v)
  const tx = 2 * (q.y * v.z - q.z * v.y);
  const ty = 2 * (q.z * v.x - q.x * v.z);
  const tz = 2 * (q.x * v.y - q.y * v.x);
  return {
    x: v.x + q.w * tx + (q.y * tz - q.z * ty),
    y: v.y + q.w * ty + (q.z * tx - q.x * tz),
    z: v.z + q.w * tz + (q.x * ty - q.y * tx),
  };
}
