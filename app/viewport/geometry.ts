/**
 * Shape → three.js geometry. Primitives use shared unit geometries scaled per instance (box, sphere,
 * ellipsoid, cylinder, cone); capsules and meshes get one geometry per distinct size or mesh. Shapes
 * with the same geometry key share one InstancedMesh, so replicated worlds cost one draw call per key.
 * Everything is built z-up (the engine's convention).
 */
import * as THREE from 'three';
import type { HfieldInfo, MeshInfo, ShapeInfo } from '../../engine/worker/protocol';

/** engine ShapeType values (mirrors engine/model/types.ts) */
export const SHAPE = {
  PLANE: 0,
  SPHERE: 1,
  CAPSULE: 2,
  BOX: 3,
  CYLINDER: 4,
  CONE: 5,
  ELLIPSOID: 6,
  MESH: 7,
  CONVEX_MESH: 8,
  HEIGHTFIELD: 9,
} as const;

export const FLAG_VISIBLE = 1;
export const FLAG_COLLIDE = 2;

export interface ShapeGeometry {
  key: string;
  /** per-instance scale applied to the shared geometry */
  scale: [number, number, number];
}

/** the geometry key and instance scale of a shape (null: not drawn as a body shape, e.g. planes) */
export function shapeGeometry(s: ShapeInfo): ShapeGeometry | null {
  const [a, b, c] = s.size;
  switch (s.type) {
    case SHAPE.SPHERE:
      return { key: 'sphere', scale: [a, a, a] };
    case SHAPE.ELLIPSOID:
      return { key: 'sphere', scale: [a, b, c] };
    case SHAPE.BOX:
      return { key: 'box', scale: [2 * a, 2 * b, 2 * c] };
    case SHAPE.CYLINDER:
      return { key: 'cylinder', scale: [a, a, b] };
    case SHAPE.CONE:
      return { key: 'cone', scale: [a, a, b] };
    case SHAPE.CAPSULE:
      return { key: `capsule:${a.toPrecision(6)}:${b.toPrecision(6)}`, scale: [1, 1, 1] };
    case SHAPE.MESH:
    case SHAPE.CONVEX_MESH:
      return s.mesh >= 0 ? { key: `mesh:${s.mesh}`, scale: [a || 1, b || 1, c || 1] } : null;
    case SHAPE.HEIGHTFIELD:
      return s.hfield >= 0 ? { key: `hfield:${s.hfield}`, scale: [1, 1, 1] } : null;
    default:
      return null;
  }
}

/** builds the geometry for a key */
export function buildGeometry(key: string, meshes: MeshInfo[], hfields: HfieldInfo[]): THREE.BufferGeometry {
  const [kind, p1, p2] = key.split(':');
  let g: THREE.BufferGeometry;
  switch (kind) {
    case 'sphere':
      g = new THREE.SphereGeometry(1, 32, 16);
      break;
    case 'box':
      g = new THREE.BoxGeometry(1, 1, 1);
      break;
    case 'cylinder':
      g = new THREE.CylinderGeometry(1, 1, 2, 32).rotateX(Math.PI / 2);
      break;
    case 'cone':
      g = new THREE.ConeGeometry(1, 2, 32).rotateX(Math.PI / 2);
      break;
    case 'capsule':
      g = new THREE.CapsuleGeometry(Number(p1), 2 * Number(p2), 8, 24).rotateX(Math.PI / 2);
      break;
    case 'mesh': {
      const m = meshes[Number(p1)];
      g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(m.vertices, 3));
      g.setIndex(new THREE.BufferAttribute(m.triangles, 1));
      if (m.uv) g.setAttribute('uv', new THREE.BufferAttribute(m.uv, 2));
      g.computeVertexNormals();
      break;
    }
    case 'hfield': {
      const h = hfields[Number(p1)];
      const [hx, hy, hz] = h.size;
      g = new THREE.PlaneGeometry(2 * hx, 2 * hy, Math.max(1, h.ncol - 1), Math.max(1, h.nrow - 1));
      const pos = g.getAttribute('position') as THREE.BufferAttribute;
      // PlaneGeometry rows run from +y to −y; the engine's rows run along +y
      for (let r = 0; r < h.nrow; r++) {
        for (let col = 0; col < h.ncol; col++) {
          const i = (h.nrow - 1 - r) * h.ncol + col;
          if (i < pos.count) pos.setZ(i, (h.data[r * h.ncol + col] ?? 0) * hz);
        }
      }
      g.computeVertexNormals();
      break;
    }
    default:
      g = new THREE.BoxGeometry(0.05, 0.05, 0.05);
  }
  void p2;
  return g;
}

/**
 * the colour of constraint island k (golden-angle hues, so neighbouring numbers differ), grey for
 * bodies in no island (−1)
 */
export function islandColor(k: number, out = new THREE.Color()): THREE.Color {
  if (k < 0) return out.setRGB(0.42, 0.42, 0.45);
  return out.setHSL((k * 0.381966) % 1, 0.7, 0.55);
}

/**
 * a shape's colour as three draws it: the model's colours are sRGB-encoded display values (as
 * RViz and MuJoCo show a file's colours), decoded into three's linear working space
 */
export function shapeColor(s: ShapeInfo, out = new THREE.Color()): THREE.Color {
  const [r, g, b] = s.color;
  return out.setRGB(r ?? 0.7, g ?? 0.7, b ?? 0.7, THREE.SRGBColorSpace);
}

/**
 * writes the world matrix of a shape: body pose (from the float32 pose frame, 7 per body) ∘ X_bs,
 * then the display offset of its world and the instance scale
 */
export function composeShapeMatrix(
  s: ShapeInfo,
  poses: Float32Array | null,
  offset: number[] | undefined,
  scale: [number, number, number],
  out: THREE.Matrix4,
  tmp: { p: THREE.Vector3; q: THREE.Quaternion; pb: THREE.Vector3; qb: THREE.Quaternion; sc: THREE.Vector3 },
): void {
  const X = s.X_bs;
  tmp.p.set(X[0], X[1], X[2]);
  tmp.q.set(X[3], X[4], X[5], X[6]);
  if (s.body >= 0 && poses) {
    const o = s.body * 7;
    tmp.pb.set(poses[o], poses[o + 1], poses[o + 2]);
    tmp.qb.set(poses[o + 3], poses[o + 4], poses[o + 5], poses[o + 6]);
    tmp.p.applyQuaternion(tmp.qb).add(tmp.pb);
    tmp.q.premultiply(tmp.qb);
  }
  if (offset) tmp.p.set(tmp.p.x + offset[0], tmp.p.y + offset[1], tmp.p.z + offset[2]);
  tmp.sc.set(scale[0], scale[1], scale[2]);
  out.compose(tmp.p, tmp.q, tmp.sc);
}
