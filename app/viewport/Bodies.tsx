/**
 * Bodies: every body shape as instanced meshes grouped by geometry key (replicated worlds and equal
 * shapes share a draw call). Pose updates happen in `useFrame`, writing instance matrices straight
 * from the worker's latest frame — never through React state. Pointer-down on a body selects it;
 * dragging pulls it with a spring (a `perturb` command per animation frame).
 */
import { useFrame, useThree, type ThreeEvent } from '@react-three/fiber';
import { useEffect, useMemo, useRef } from 'react';
import * as THREE from 'three';
import type { SceneInfo } from '../../engine/worker/protocol';
import { client, send } from '../session';
import { useStudio } from '../store';
import {
  FLAG_COLLIDE,
  FLAG_VISIBLE,
  SHAPE,
  buildGeometry,
  composeShapeMatrix,
  islandColor,
  shapeColor,
  shapeGeometry,
} from './geometry';
import { sceneTextures, type SceneTextures } from './textures';

export interface Group {
  key: string;
  geometry: THREE.BufferGeometry;
  shapes: number[];
  scales: [number, number, number][];
  /** the scene image a textured mesh draws with, else -1 */
  texture: number;
}

/** groups the shapes of a layer by geometry key */
export function buildGroups(scene: SceneInfo, layer: 'visual' | 'collision'): Group[] {
  const byKey = new Map<string, Group>();
  scene.shapes.forEach((s, i) => {
    if (s.type === SHAPE.PLANE) return;
    const visible =
      layer === 'visual' ? (s.flags & FLAG_VISIBLE) !== 0 || s.flags === 0 : (s.flags & FLAG_COLLIDE) !== 0;
    if (!visible) return;
    const g = shapeGeometry(s);
    if (!g) return;
    let grp = byKey.get(g.key);
    if (!grp) {
      grp = {
        key: g.key,
        geometry: buildGeometry(g.key, scene.meshes, scene.hfields),
        shapes: [],
        scales: [],
        texture: layer === 'visual' && s.mesh >= 0 ? (scene.meshes[s.mesh].texture ?? -1) : -1,
      };
      byKey.set(g.key, grp);
    }
    grp.shapes.push(i);
    grp.scales.push(g.scale);
  });
  return [...byKey.values()];
}

const tmp = {
  p: new THREE.Vector3(),
  q: new THREE.Quaternion(),
  pb: new THREE.Vector3(),
  qb: new THREE.Quaternion(),
  sc: new THREE.Vector3(),
};
const M = new THREE.Matrix4();
const HIGHLIGHT = new THREE.Color(1, 0.85, 0.2);

/** whether two island labellings are equal (frames bring a new array each time) */
function sameLabels(a: Int32Array, b: Int32Array | null): boolean {
  if (b === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
const paintColor = new THREE.Color();

function ShapeGroup({
  scene,
  group,
  layer,
  textures,
  onDown,
}: {
  scene: SceneInfo;
  group: Group;
  layer: 'visual' | 'collision';
  textures: SceneTextures;
  onDown: (e: ThreeEvent<PointerEvent>, shape: number) => void;
}) {
  const ref = useRef<THREE.InstancedMesh>(null);
  const selection = useStudio((s) => s.selection);
  const shadows = useStudio((s) => s.view.shadows);
  const byIsland = useStudio((s) => s.view.islands);
  const material = useMemo(
    () =>
      layer === 'visual'
        ? new THREE.MeshStandardMaterial({ roughness: 0.55, metalness: 0.05 })
        : new THREE.MeshBasicMaterial({ wireframe: true, color: 0xffffff, transparent: true, opacity: 0.9 }),
    [layer],
  );
  useEffect(() => () => material.dispose(), [material]);
  // a textured mesh's image, once decoded (the instance colour, white for it, multiplies it)
  useEffect(() => {
    if (group.texture < 0 || !(material instanceof THREE.MeshStandardMaterial)) return;
    let live = true;
    void textures.get(group.texture).then((tex) => {
      if (!live || !tex) return;
      material.map = tex;
      material.needsUpdate = true;
    });
    return () => {
      live = false;
    };
  }, [group, material, textures]);

  // colours: scene colours (or each body's constraint island), the selected body highlighted
  const colourIslands = useRef<Int32Array | null>(null);
  const paint = (islands: Int32Array | null) => {
    const mesh = ref.current;
    if (!mesh) return;
    const c = paintColor;
    group.shapes.forEach((si, k) => {
      const s = scene.shapes[si];
      if (layer === 'collision') c.setRGB(0.2, 1, 0.45);
      else if (islands && s.body >= 0 && s.body < islands.length) islandColor(islands[s.body], c);
      else shapeColor(s, c);
      if (selection !== null && s.body === selection) c.lerp(HIGHLIGHT, 0.55);
      mesh.setColorAt(k, c);
    });
    if (mesh.instanceColor) mesh.instanceColor.needsUpdate = true;
  };
  useEffect(() => {
    colourIslands.current = null;
    paint(byIsland ? client.latest.islands : null);
  }, [scene, group, layer, selection, byIsland]);

  const lastSeq = useRef(-1);
  useFrame(() => {
    const mesh = ref.current;
    if (!mesh) return;
    const poses = client.poses();
    const seq = client.latest.seq;
    const islands = client.latest.islands;
    if (byIsland && islands && !sameLabels(islands, colourIslands.current)) {
      colourIslands.current = islands;
      paint(islands);
    }
    if (seq === lastSeq.current && lastSeq.current >= 0) return;
    lastSeq.current = seq;
    group.shapes.forEach((si, k) => {
      const s = scene.shapes[si];
      const w = s.body >= 0 ? scene.body_world[s.body] : s.world;
      composeShapeMatrix(s, poses, w >= 0 ? scene.world_offset[w] : undefined, group.scales[k], M, tmp);
      mesh.setMatrixAt(k, M);
    });
    mesh.instanceMatrix.needsUpdate = true;
    mesh.computeBoundingSphere();
  });

  return (
    <instancedMesh
      ref={ref}
      args={[group.geometry, material, group.shapes.length]}
      castShadow={layer === 'visual' && shadows}
      receiveShadow={layer === 'visual' && shadows}
      frustumCulled={false}
      name={`${layer}:${group.key}`}
      onPointerDown={(e) => {
        if (e.instanceId === undefined) return;
        onDown(e, group.shapes[e.instanceId]);
      }}
    />
  );
}

/** drag state while a pointer holds a body */
interface DragState {
  body: number;
  world: number;
  local: THREE.Vector3;
  plane: THREE.Plane;
  startX: number;
  startY: number;
  active: boolean;
  target: THREE.Vector3 | null;
  pointerId: number;
}

export function Bodies({ scene }: { scene: SceneInfo }) {
  const view = useStudio((s) => s.view);
  const visual = useMemo(() => buildGroups(scene, 'visual'), [scene]);
  const collision = useMemo(
    () => (view.collision ? buildGroups(scene, 'collision') : []),
    [scene, view.collision],
  );
  useEffect(() => () => visual.forEach((g) => g.geometry.dispose()), [visual]);
  const textures = useMemo(() => sceneTextures(scene.textures ?? []), [scene]);
  useEffect(() => () => textures.dispose(), [textures]);
  useEffect(() => () => collision.forEach((g) => g.geometry.dispose()), [collision]);

  const { camera, gl, controls } = useThree();
  const drag = useRef<DragState | null>(null);

  // pointer → world target on the drag plane, sent once per animation frame
  useFrame(() => {
    const d = drag.current;
    if (!d || !d.active || !d.target) return;
    const off = scene.world_offset[d.world] ?? [0, 0, 0];
    send({
      type: 'perturb',
      body: d.body,
      point: [d.local.x, d.local.y, d.local.z],
      target: [d.target.x - off[0], d.target.y - off[1], d.target.z - off[2]],
    });
    d.target = null;
  });

  useEffect(() => {
    const el = gl.domElement;
    const ray = new THREE.Raycaster();
    const ndc = new THREE.Vector2();
    const move = (ev: PointerEvent) => {
      const d = drag.current;
      if (!d || ev.pointerId !== d.pointerId) return;
      if (!d.active && Math.hypot(ev.clientX - d.startX, ev.clientY - d.startY) < 4) return;
      if (!d.active) {
        d.active = true;
        if (controls) (controls as unknown as { enabled: boolean }).enabled = false;
      }
      const r = el.getBoundingClientRect();
      ndc.set(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1);
      ray.setFromCamera(ndc, camera);
      const hit = new THREE.Vector3();
      if (ray.ray.intersectPlane(d.plane, hit)) d.target = hit;
    };
    const up = (ev: PointerEvent) => {
      const d = drag.current;
      if (!d || ev.pointerId !== d.pointerId) return;
      if (d.active) send({ type: 'perturb', body: -1 });
      drag.current = null;
      if (controls) (controls as unknown as { enabled: boolean }).enabled = true;
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', up);
    return () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      window.removeEventListener('pointercancel', up);
    };
  }, [gl, camera, controls]);

  const onDown = (e: ThreeEvent<PointerEvent>, shapeIndex: number) => {
    const s = scene.shapes[shapeIndex];
    if (s.body < 0 || e.button !== 0) return;
    e.stopPropagation();
    const st = useStudio.getState();
    st.set({ selection: s.body, contact: null });
    const poses = client.poses();
    if (!poses) return;
    const w = scene.body_world[s.body];
    const off = scene.world_offset[w] ?? [0, 0, 0];
    const o = s.body * 7;
    const q = new THREE.Quaternion(poses[o + 3], poses[o + 4], poses[o + 5], poses[o + 6]);
    const local = e.point
      .clone()
      .sub(new THREE.Vector3(poses[o] + off[0], poses[o + 1] + off[1], poses[o + 2] + off[2]))
      .applyQuaternion(q.invert());
    const normal = new THREE.Vector3();
    camera.getWorldDirection(normal);
    drag.current = {
      body: s.body,
      world: w,
      local,
      plane: new THREE.Plane().setFromNormalAndCoplanarPoint(normal, e.point),
      startX: e.nativeEvent.clientX,
      startY: e.nativeEvent.clientY,
      active: false,
      target: null,
      pointerId: e.pointerId,
    };
  };

  return (
    <group>
      {view.visual &&
        visual.map((g) => (
          <ShapeGroup
            key={`v:${g.key}`}
            scene={scene}
            group={g}
            layer="visual"
            textures={textures}
            onDown={onDown}
          />
        ))}
      {collision.map((g) => (
        <ShapeGroup
          key={`c:${g.key}`}
          scene={scene}
          group={g}
          layer="collision"
          textures={textures}
          onDown={onDown}
        />
      ))}
    </group>
  );
}
