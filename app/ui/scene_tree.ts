/**
 * The scene tree's data: world 0's bodies nested under their parents (SceneInfo.joint_parent), each
 * with the joint that moves it and its shapes, under a `world` root that holds the static geometry.
 * Names are the file's (body, joint and shape labels).
 */
import type { SceneInfo } from '../../engine/worker/protocol';

/** ShapeType code → name (engine/model ShapeType) */
export const SHAPE_TYPE_NAMES = [
  'plane',
  'sphere',
  'capsule',
  'box',
  'cylinder',
  'cone',
  'ellipsoid',
  'mesh',
  'convex mesh',
  'heightfield',
] as const;

export interface TreeShape {
  /** index into SceneInfo.shapes */
  index: number;
  label: string;
  type: string;
}

export interface TreeBody {
  /** body index (SceneInfo.body_label), −1 for the world */
  body: number;
  label: string;
  /** the joint that moves the body (joint j moves body j); null for the world */
  joint: { label: string; type: string } | null;
  shapes: TreeShape[];
  children: TreeBody[];
}

/** the shape's display name: its label, or its type and index when the file named none */
function shapeLabel(scene: SceneInfo, s: number): string {
  const l = scene.shapes[s].label;
  return l || `${SHAPE_TYPE_NAMES[scene.shapes[s].type] ?? 'shape'} ${s}`;
}

/** world 0's bodies as a tree under the world (replicas repeat it and are left out) */
export function buildSceneTree(scene: SceneInfo): TreeBody {
  const root: TreeBody = { body: -1, label: 'world', joint: null, shapes: [], children: [] };
  const nodes = new Map<number, TreeBody>();
  const per = Math.min(scene.bodies_per_world, scene.body_count);
  for (let b = 0; b < per; b++) {
    nodes.set(b, {
      body: b,
      label: scene.body_label[b] || `body ${b}`,
      joint: { label: scene.joint_label[b] ?? `joint ${b}`, type: scene.joint_type[b] ?? '?' },
      shapes: [],
      children: [],
    });
  }
  for (let s = 0; s < scene.shapes.length; s++) {
    const sh = scene.shapes[s];
    const owner = sh.body < 0 ? root : nodes.get(sh.body);
    owner?.shapes.push({ index: s, label: shapeLabel(scene, s), type: SHAPE_TYPE_NAMES[sh.type] ?? '?' });
  }
  // joints are sorted parent-first, so every parent's node exists when its child is attached
  for (let b = 0; b < per; b++) {
    const p = scene.joint_parent?.[b] ?? -1;
    (nodes.get(p) ?? root).children.push(nodes.get(b)!);
  }
  return root;
}

/** the bodies from the root to `body` (its ancestors, itself last), for opening the tree to it */
export function pathToBody(tree: TreeBody, body: number): number[] | null {
  if (tree.body === body) return [body];
  for (const c of tree.children) {
    const p = pathToBody(c, body);
    if (p) return [tree.body, ...p];
  }
  return null;
}
