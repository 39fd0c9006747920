/**
 * The MuJoCo ghost (app/ghost.ts): world 0's visual shapes drawn translucent at MuJoCo's body
 * poses. It also pumps the ghost: each animation frame hands the newest live frame to the ghost
 * worker (at most one in flight). Instance matrices are written in `useFrame` from the ghost's
 * mutable pose buffer, never through React state; it takes no pointer events (the live bodies
 * under it stay draggable).
 */
import { useFrame } from '@react-three/fiber';
import { useEffect, useMemo, useRef } from 'react';
import * as THREE from 'three';
import type { SceneInfo } from '../../engine/worker/protocol';
import { ghostDrawn, ghostFrame, pumpGhost } from '../ghost';
import { buildGroups, type Group } from './Bodies';
import { composeShapeMatrix } from './geometry';

const tmp = {
  p: new THREE.Vector3(),
  q: new THREE.Quaternion(),
  pb: new THREE.Vector3(),
  qb: new THREE.Quaternion(),
  sc: new THREE.Vector3(),
};
const M = new THREE.Matrix4();
/** a matrix that draws nothing (a body MuJoCo does not have) */
const HIDDEN = new THREE.Matrix4().makeScale(0, 0, 0);
/** how many instances the groups drew in this animation frame (summed into ghostDrawn) */
const drawnNow = { frame: -1, count: 0 };

function GhostGroup({
  scene,
  group,
  material,
}: {
  scene: SceneInfo;
  group: Group;
  material: THREE.Material;
}) {
  const ref = useRef<THREE.InstancedMesh>(null);
  const lastSeq = useRef(-1);
  useFrame((state) => {
    const mesh = ref.current;
    const poses = ghostFrame.poses;
    if (!mesh) return;
    mesh.visible = poses !== null;
    if (!poses || ghostFrame.seq === lastSeq.current) return;
    lastSeq.current = ghostFrame.seq;
    const frame = state.clock.elapsedTime;
    if (drawnNow.frame !== frame) {
      drawnNow.frame = frame;
      drawnNow.count = 0;
    }
    const offset = scene.world_offset[0];
    group.shapes.forEach((si, k) => {
      const s = scene.shapes[si];
      if (Number.isNaN(poses[s.body * 7])) {
        mesh.setMatrixAt(k, HIDDEN);
        return;
      }
      composeShapeMatrix(s, poses, offset, group.scales[k], M, tmp);
      mesh.setMatrixAt(k, M);
      drawnNow.count++;
    });
    ghostDrawn.count = drawnNow.count;
    mesh.instanceMatrix.needsUpdate = true;
    mesh.computeBoundingSphere();
  });
  return (
    <instancedMesh
      ref={ref}
      args={[group.geometry, material, group.shapes.length]}
      frustumCulled={false}
      renderOrder={2}
      raycast={() => undefined}
      name={`ghost:${group.key}`}
    />
  );
}

export function Ghost({ scene }: { scene: SceneInfo }) {
  // world 0's bodies only: MuJoCo runs one world
  const groups = useMemo(
    () =>
      buildGroups(scene, 'visual')
        .map((g) => {
          const keep = g.shapes
            .map((si, k) => [si, k])
            .filter(([si]) => {
              const b = scene.shapes[si].body;
              return b >= 0 && scene.body_world[b] === 0;
            });
          return { ...g, shapes: keep.map(([si]) => si), scales: keep.map(([, k]) => g.scales[k]) };
        })
        .filter((g) => g.shapes.length > 0),
    [scene],
  );
  useEffect(() => () => groups.forEach((g) => g.geometry.dispose()), [groups]);
  const material = useMemo(
    () =>
      new THREE.MeshStandardMaterial({
        color: 0xeef0ff,
        roughness: 0.6,
        transparent: true,
        opacity: 0.35,
        depthWrite: false,
      }),
    [],
  );
  useEffect(() => () => material.dispose(), [material]);
  useFrame(() => pumpGhost());
  return (
    <group name="mujoco-ghost">
      {groups.map((g) => (
        <GhostGroup key={g.key} scene={scene} group={g} material={material} />
      ))}
    </group>
  );
}
