/**
 * Contact overlay (SPEC §8): per contact the witness points x0 and x1 (point0/point1 carried by
 * the body poses of the frame), the Jacobian point p_C (contacts.position), the normal, the force
 * arrow (γ/dt, world, on body 1), stick/slip/open colours, and the gap band x0–x1 (blue: open gap
 * φ₀ > 0, red: penetration φ₀ < 0). Click a p_C marker to inspect the contact's numbers.
 * Updated in useFrame from the latest frame; never through React state.
 */
import { useFrame, type ThreeEvent } from '@react-three/fiber';
import { useEffect, useMemo, useRef } from 'react';
import * as THREE from 'three';
import { CF, CONTACT_FIELDS, CONTACT_STRIDE, type SceneInfo } from '../../engine/worker/protocol';
import { client } from '../session';
import { useStudio, type ContactDetail } from '../store';
import { matchContact } from './contact_match';

const SLIP_COLORS = [
  new THREE.Color(0.6, 0.6, 0.65),
  new THREE.Color(0.1, 0.9, 0.3),
  new THREE.Color(1, 0.55, 0.1),
];
const GAP_COLOR = new THREE.Color(0.25, 0.6, 1);
const PEN_COLOR = new THREE.Color(1, 0.2, 0.25);
const NORMAL_COLOR = new THREE.Color(0.9, 0.9, 0.95);
const FORCE_COLOR = new THREE.Color(1, 0.85, 0.1);

/** world position of a body-frame point under a float32 pose frame (static: the point itself) */
export function bodyPointToWorld(
  poses: Float32Array | null,
  body: number,
  px: number,
  py: number,
  pz: number,
  out: THREE.Vector3,
): THREE.Vector3 {
  out.set(px, py, pz);
  if (body >= 0 && poses) {
    const o = body * 7;
    const q = new THREE.Quaternion(poses[o + 3], poses[o + 4], poses[o + 5], poses[o + 6]);
    out.applyQuaternion(q).add(new THREE.Vector3(poses[o], poses[o + 1], poses[o + 2]));
  }
  return out;
}

/** the contact's numbers by field name */
export function contactValues(data: Float64Array, k: number): Record<string, number> {
  const out: Record<string, number> = {};
  CONTACT_FIELDS.forEach((f, i) => (out[f] = data[k * CONTACT_STRIDE + i]));
  return out;
}

/** what the contact inspector shows of contact k of a frame */
function contactDetail(
  data: Float64Array,
  k: number,
  dt: number,
  poses: Float32Array | null,
  time: number,
): ContactDetail {
  const values = contactValues(data, k);
  const a = bodyPointToWorld(poses, values.body0, values.p0x, values.p0y, values.p0z, new THREE.Vector3());
  const b = bodyPointToWorld(poses, values.body1, values.p1x, values.p1y, values.p1z, new THREE.Vector3());
  return { index: k, values: { ...values, dt }, x0: a.toArray(), x1: b.toArray(), time };
}

let lastLook = 0;
// the inspected contact stays live while playing: the same pair near the same point, ~10 times a second
function followInspected(n: number, d: Float64Array | undefined, dt: number, time: number): void {
  const st = useStudio.getState();
  const sel = st.contact;
  const now = performance.now();
  if (!sel || !d || now - lastLook < 100) return;
  lastLook = now;
  const k = matchContact(d, n, sel.values);
  if (k < 0) {
    if (sel.goneAt === undefined) st.set({ contact: { ...sel, goneAt: time } });
    return;
  }
  st.set({ contact: contactDetail(d, k, dt, client.poses(), time) });
}

export interface OverlayHandle {
  markers(): { pC: number[][]; x0: number[][]; x1: number[][] };
}

export function Contacts({ scene, handle }: { scene: SceneInfo; handle: { current: OverlayHandle | null } }) {
  const view = useStudio((s) => s.view);
  const extent = Math.max(
    scene.bounds.max[0] - scene.bounds.min[0],
    scene.bounds.max[1] - scene.bounds.min[1],
    scene.bounds.max[2] - scene.bounds.min[2],
    0.1,
  );
  const r = Math.min(0.02, Math.max(0.003, extent * 0.012));
  const cap = Math.min(Math.max(1, scene.contact_capacity * scene.num_worlds), 8192);

  const pcRef = useRef<THREE.InstancedMesh>(null);
  const x0Ref = useRef<THREE.InstancedMesh>(null);
  const x1Ref = useRef<THREE.InstancedMesh>(null);
  const geo = useMemo(
    () => ({
      pc: new THREE.SphereGeometry(r, 12, 8),
      x: new THREE.OctahedronGeometry(r * 0.7),
    }),
    [r],
  );
  const mats = useMemo(
    () => ({
      pc: new THREE.MeshBasicMaterial({ depthTest: false, transparent: true }),
      x0: new THREE.MeshBasicMaterial({ color: 0xff5cf0, depthTest: false, transparent: true }),
      x1: new THREE.MeshBasicMaterial({ color: 0x3cf0ff, depthTest: false, transparent: true }),
      lines: new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false, transparent: true }),
    }),
    [],
  );
  // line segments: per contact normal (2 vertices), force (2), gap band (2)
  const lines = useMemo(() => {
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(cap * 6 * 3), 3));
    g.setAttribute('color', new THREE.BufferAttribute(new Float32Array(cap * 6 * 3), 3));
    g.setDrawRange(0, 0);
    return g;
  }, [cap]);
  useEffect(
    () => () => {
      geo.pc.dispose();
      geo.x.dispose();
      lines.dispose();
    },
    [geo, lines],
  );
  useEffect(() => () => Object.values(mats).forEach((m) => m.dispose()), [mats]);

  useEffect(() => {
    handle.current = {
      markers() {
        const out = { pC: [] as number[][], x0: [] as number[][], x1: [] as number[][] };
        const m = new THREE.Matrix4();
        const p = new THREE.Vector3();
        for (const [key, ref] of [
          ['pC', pcRef],
          ['x0', x0Ref],
          ['x1', x1Ref],
        ] as const) {
          const mesh = ref.current;
          if (!mesh) continue;
          for (let i = 0; i < mesh.count; i++) {
            mesh.getMatrixAt(i, m);
            p.setFromMatrixPosition(m);
            out[key].push([p.x, p.y, p.z]);
          }
        }
        return out;
      },
    };
    return () => {
      handle.current = null;
    };
  }, [handle]);

  const lastSeq = useRef(-1);
  useFrame(() => {
    const pcs = pcRef.current,
      x0s = x0Ref.current,
      x1s = x1Ref.current;
    if (!pcs || !x0s || !x1s) return;
    const frame = client.latest;
    const poses = client.poses();
    if (frame.seq === lastSeq.current) return;
    lastSeq.current = frame.seq;
    const c = frame.contacts;
    const n = c ? Math.min(c.count, cap) : 0;
    const d = c?.data;
    const M = new THREE.Matrix4();
    const a = new THREE.Vector3(),
      b = new THREE.Vector3(),
      pc = new THREE.Vector3();
    const pos = lines.getAttribute('position') as THREE.BufferAttribute;
    const col = lines.getAttribute('color') as THREE.BufferAttribute;
    let v = 0;
    const seg = (p: THREE.Vector3, q: THREE.Vector3, color: THREE.Color) => {
      pos.setXYZ(v, p.x, p.y, p.z);
      col.setXYZ(v++, color.r, color.g, color.b);
      pos.setXYZ(v, q.x, q.y, q.z);
      col.setXYZ(v++, color.r, color.g, color.b);
    };
    const L = r * 6;
    for (let k = 0; k < n && d; k++) {
      const o = k * CONTACT_STRIDE;
      const off = scene.world_offset[d[o + CF.world]] ?? [0, 0, 0];
      const offV = new THREE.Vector3(off[0], off[1], off[2]);
      bodyPointToWorld(poses, d[o + CF.body0], d[o + CF.p0x], d[o + CF.p0y], d[o + CF.p0z], a).add(offV);
      bodyPointToWorld(poses, d[o + CF.body1], d[o + CF.p1x], d[o + CF.p1y], d[o + CF.p1z], b).add(offV);
      pc.set(d[o + CF.px], d[o + CF.py], d[o + CF.pz]).add(offV);
      M.makeTranslation(pc.x, pc.y, pc.z);
      pcs.setMatrixAt(k, M);
      pcs.setColorAt(k, SLIP_COLORS[d[o + CF.slip]] ?? SLIP_COLORS[0]);
      M.makeTranslation(a.x, a.y, a.z);
      x0s.setMatrixAt(k, M);
      M.makeTranslation(b.x, b.y, b.z);
      x1s.setMatrixAt(k, M);
      if (view.normals) {
        const tip = new THREE.Vector3(d[o + CF.nx], d[o + CF.ny], d[o + CF.nz]).multiplyScalar(L).add(pc);
        seg(pc, tip, NORMAL_COLOR);
      }
      if (view.forces) {
        const f = new THREE.Vector3(d[o + CF.fx], d[o + CF.fy], d[o + CF.fz]).multiplyScalar(
          view.force_scale,
        );
        seg(pc, f.add(pc), FORCE_COLOR);
      }
      seg(a, b, d[o + CF.phi0] < 0 ? PEN_COLOR : GAP_COLOR);
    }
    pcs.count = x0s.count = x1s.count = n;
    for (const m of [pcs, x0s, x1s]) {
      m.instanceMatrix.needsUpdate = true;
      if (m.instanceColor) m.instanceColor.needsUpdate = true;
      m.computeBoundingSphere(); // raycasting (click to inspect) tests against it
    }
    pos.needsUpdate = true;
    col.needsUpdate = true;
    lines.setDrawRange(0, v);
    followInspected(n, d, c?.dt ?? 0, frame.time);
  });

  const onClick = (e: ThreeEvent<MouseEvent>) => {
    e.stopPropagation();
    const c = client.latest.contacts;
    if (e.instanceId === undefined || !c || e.instanceId >= c.count) return;
    useStudio
      .getState()
      .set({ contact: contactDetail(c.data, e.instanceId, c.dt, client.poses(), client.latest.time) });
  };

  return (
    <group renderOrder={10}>
      <instancedMesh
        ref={pcRef}
        args={[geo.pc, mats.pc, cap]}
        frustumCulled={false}
        renderOrder={12}
        name="contacts:pC"
        onClick={onClick}
      />
      <instancedMesh
        ref={x0Ref}
        args={[geo.x, mats.x0, cap]}
        frustumCulled={false}
        renderOrder={11}
        name="contacts:x0"
      />
      <instancedMesh
        ref={x1Ref}
        args={[geo.x, mats.x1, cap]}
        frustumCulled={false}
        renderOrder={11}
        name="contacts:x1"
      />
      <lineSegments args={[lines, mats.lines]} frustumCulled={false} renderOrder={10} />
    </group>
  );
}
