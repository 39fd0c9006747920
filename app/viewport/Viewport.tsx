/**
 * The 3D viewport: z-up orbit camera, lights with shadows fitted to the scene, ground planes with a
 * grid, the bodies and the contact overlay. Registers a {@link ViewportHandle} so links and panels can
 * read and move the camera (frame all, frame selected).
 */
import { OrbitControls } from '@react-three/drei';
import { Canvas, useFrame, useThree } from '@react-three/fiber';
import { useEffect, useMemo, useRef } from 'react';
import * as THREE from 'three';
import type { SceneInfo } from '../../engine/worker/protocol';
import { client, viewport } from '../session';
import { useStudio } from '../store';
import { Bodies } from './Bodies';
import { Ghost } from './Ghost';
import { Contacts, type OverlayHandle } from './Contacts';
import { bodyReach, CAMERA_PRESETS, liveExtent, type CameraPreset } from './framing';
import { SHAPE } from './geometry';

THREE.Object3D.DEFAULT_UP.set(0, 0, 1);

/** the part of drei's OrbitControls used here */
interface OrbitControlsImpl {
  target: THREE.Vector3;
  enabled: boolean;
  update(): void;
}

/**
 * Rendering quality: software rasterizers (SwiftShader, llvmpipe — headless CI, VMs without a GPU)
 * get no MSAA, a smaller shadow map and dpr 1 so the UI stays responsive. `?quality=high|low`
 * overrides the detection.
 */
export const QUALITY: 'high' | 'low' = (() => {
  const forced = new URLSearchParams(location.search).get('quality');
  if (forced === 'high' || forced === 'low') return forced;
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return 'low';
    const ext = gl.getExtension('WEBGL_debug_renderer_info');
    const name = String(ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|software|basic render/i.test(name) ? 'low' : 'high';
  } catch {
    return 'low';
  }
})();

/** where body b is drawn: its pose's position plus its world's display offset [m], into `out` */
function drawnBodyPosition(
  scene: SceneInfo,
  poses: ArrayLike<number>,
  b: number,
  out: THREE.Vector3,
): THREE.Vector3 {
  const off = scene.world_offset[scene.body_world[b]] ?? [0, 0, 0];
  return out.set(poses[b * 7] + off[0], poses[b * 7 + 1] + off[1], poses[b * 7 + 2] + off[2]);
}

function sceneExtent(scene: SceneInfo): { center: THREE.Vector3; radius: number } {
  const lo = new THREE.Vector3().fromArray(scene.bounds.min);
  const hi = new THREE.Vector3().fromArray(scene.bounds.max);
  // replicas widen the view
  for (const o of scene.world_offset) {
    lo.min(
      new THREE.Vector3(scene.bounds.min[0] + o[0], scene.bounds.min[1] + o[1], scene.bounds.min[2] + o[2]),
    );
    hi.max(
      new THREE.Vector3(scene.bounds.max[0] + o[0], scene.bounds.max[1] + o[1], scene.bounds.max[2] + o[2]),
    );
  }
  const center = lo.clone().add(hi).multiplyScalar(0.5);
  return { center, radius: Math.max(0.25, lo.distanceTo(hi) / 2) };
}

function Ground({ scene, radius }: { scene: SceneInfo; radius: number }) {
  const planes = scene.shapes.filter((s) => s.type === SHAPE.PLANE);
  const size = Math.max(10, radius * 12);
  return (
    <>
      {planes.map((s, i) => {
        const X = s.X_bs;
        const sx = s.size[0] > 0 ? 2 * s.size[0] : size;
        const sy = s.size[1] > 0 ? 2 * s.size[1] : size;
        // grid spacing: a power of ten near a quarter of the scene size, at most 80 lines across
        const step = Math.max(
          Math.pow(10, Math.floor(Math.log10(Math.max(radius / 2, 0.01)))),
          Math.min(sx, sy) / 80,
        );
        return (
          <group key={i} position={[X[0], X[1], X[2]]} quaternion={[X[3], X[4], X[5], X[6]]}>
            <mesh receiveShadow name="ground">
              <planeGeometry args={[sx, sy]} />
              <meshStandardMaterial color="#3a3f4a" roughness={0.95} />
            </mesh>
            <gridHelper
              args={[
                Math.min(sx, sy),
                Math.max(2, Math.round(Math.min(sx, sy) / step)),
                '#59606e',
                '#4a505c',
              ]}
              rotation={[Math.PI / 2, 0, 0]}
              position={[0, 0, 0.0005]}
            />
          </group>
        );
      })}
    </>
  );
}

function Lights({ center, radius }: { center: THREE.Vector3; radius: number }) {
  const shadows = useStudio((s) => s.view.shadows);
  const light = useRef<THREE.DirectionalLight>(null);
  useEffect(() => {
    const l = light.current;
    if (!l) return;
    l.target.position.copy(center);
    l.target.updateMatrixWorld();
    const cam = l.shadow.camera;
    const r = radius * 1.5;
    cam.left = -r;
    cam.right = r;
    cam.top = r;
    cam.bottom = -r;
    cam.near = 0.01;
    cam.far = radius * 10;
    cam.updateProjectionMatrix();
  }, [center, radius]);
  const pos: [number, number, number] = [
    center.x + radius * 1.5,
    center.y - radius * 2,
    center.z + radius * 3,
  ];
  return (
    <>
      <hemisphereLight args={['#dfe8ff', '#303030', 1.1]} />
      <directionalLight
        ref={light}
        position={pos}
        intensity={2.2}
        castShadow={shadows}
        shadow-mapSize-width={QUALITY === 'high' ? 2048 : 1024}
        shadow-mapSize-height={QUALITY === 'high' ? 2048 : 1024}
        shadow-bias={-0.0005}
      />
    </>
  );
}

/** registers the camera handle and frames the scene when a new one loads */
function CameraRig({
  scene,
  center,
  radius,
  overlay,
}: {
  scene: SceneInfo;
  center: THREE.Vector3;
  radius: number;
  overlay: { current: OverlayHandle | null };
}) {
  const { camera, controls, gl, scene: world } = useThree();
  const ctl = controls as unknown as OrbitControlsImpl | null;
  const loads = useStudio((s) => s.loads);

  useEffect(() => {
    const setCamera = (p: number[], t: number[]) => {
      camera.position.set(p[0], p[1], p[2]);
      if (ctl) {
        ctl.target.set(t[0], t[1], t[2]);
        ctl.update();
      } else camera.lookAt(t[0], t[1], t[2]);
    };
    const frame = (c: THREE.Vector3, r: number, towards: readonly number[] = CAMERA_PRESETS.iso) => {
      const dir = new THREE.Vector3().fromArray(towards).normalize();
      const dist = r / Math.sin(((camera as THREE.PerspectiveCamera).fov * Math.PI) / 360) + 0.2;
      const p = c.clone().addScaledVector(dir, dist);
      setCamera(p.toArray(), c.toArray());
    };
    // where the bodies are now (a fallen robot is framed where it lies); load-time bounds before any frame
    const reach = bodyReach(scene);
    const extentNow = (): { c: THREE.Vector3; r: number } => {
      const poses = client.poses();
      const e = poses ? liveExtent(scene, poses, reach) : null;
      return e ? { c: new THREE.Vector3().fromArray(e.center), r: e.radius } : { c: center, r: radius };
    };
    viewport.handle = {
      getCamera: () => ({
        position: camera.position.toArray(),
        target: ctl ? ctl.target.toArray() : [0, 0, 0],
      }),
      setCamera,
      frameAll: () => {
        const { c, r } = extentNow();
        frame(c, r);
      },
      cameraPreset: (name: CameraPreset) => {
        const { c, r } = extentNow();
        frame(c, r, CAMERA_PRESETS[name]);
      },
      frameSelected: () => {
        const sel = useStudio.getState().selection;
        const poses = client.poses();
        if (sel === null || !poses) return viewport.handle?.frameAll();
        frame(drawnBodyPosition(scene, poses, sel, new THREE.Vector3()), Math.max(0.15, radius * 0.35));
      },
      markers: () => overlay.current?.markers() ?? { pC: [], x0: [], x1: [] },
      project: (p) => {
        const v = new THREE.Vector3(p[0], p[1], p[2]).project(camera);
        const r = gl.domElement.getBoundingClientRect();
        return [r.left + ((v.x + 1) / 2) * r.width, r.top + ((1 - v.y) / 2) * r.height];
      },
      bodyPosition: (b) => {
        const poses = client.poses();
        if (!poses || b < 0 || b >= scene.body_count) return null;
        return drawnBodyPosition(scene, poses, b, new THREE.Vector3()).toArray();
      },
      texturedDraws: () => {
        let meshes = 0;
        const images = new Set<ImageBitmap>();
        world.traverse((o) => {
          if (!(o instanceof THREE.InstancedMesh) || !o.name.startsWith('visual:')) return;
          const map = (o.material as THREE.MeshStandardMaterial).map;
          if (!map?.image) return;
          meshes++;
          images.add(map.image as ImageBitmap);
        });
        return { meshes, images: [...images].map((i) => [i.width, i.height]) };
      },
    };
  }, [camera, ctl, center, radius, scene, overlay, gl, world]);

  // frame the scene once per load, unless a link asked for its own camera
  useEffect(() => {
    const h = viewport.handle;
    const wanted = viewport.pendingCamera;
    if (!h) return;
    if (!wanted) return h.frameAll();
    h.setCamera(wanted.position, wanted.target);
    if (ctl) viewport.pendingCamera = null; // kept until the orbit controls exist to take the target
  }, [loads, ctl]);

  // follow: camera and orbit target move with the followed body, so the view around it is kept
  const follow = useStudio((s) => s.view.follow);
  const selection = useStudio((s) => s.selection);
  const followed = useMemo(() => ({ valid: false, at: new THREE.Vector3(), step: new THREE.Vector3() }), []);
  useEffect(() => {
    followed.valid = false; // start again from where the body is now, without a jump
  }, [follow, selection, loads, followed]);
  useFrame(() => {
    const body = selection ?? 0;
    const poses = client.poses();
    if (!follow || !ctl || !poses || body >= scene.body_count) return;
    const d = drawnBodyPosition(scene, poses, body, followed.step).sub(followed.at);
    followed.at.add(d);
    if (followed.valid && d.lengthSq() > 0) {
      camera.position.add(d);
      ctl.target.add(d);
      ctl.update();
    }
    followed.valid = true;
  });
  return null;
}

function SceneContent({ scene }: { scene: SceneInfo }) {
  const overlayOn = useStudio((s) => s.view.overlay);
  const ghostOn = useStudio((s) => s.view.ghost);
  const { center, radius } = useMemo(() => sceneExtent(scene), [scene]);
  const overlay = useRef<OverlayHandle | null>(null);
  return (
    <>
      <Lights center={center} radius={radius} />
      <Ground scene={scene} radius={radius} />
      <Bodies scene={scene} />
      {overlayOn && <Contacts scene={scene} handle={overlay} />}
      {ghostOn && <Ghost scene={scene} />}
      <CameraRig scene={scene} center={center} radius={radius} overlay={overlay} />
    </>
  );
}

export function Viewport() {
  const scene = useStudio((s) => s.scene);
  return (
    <Canvas
      shadows="percentage"
      dpr={QUALITY === 'high' ? [1, 2] : 1}
      camera={{ position: [3, -4, 2.5], fov: 45, near: 0.01, far: 500, up: [0, 0, 1] }}
      gl={{ antialias: QUALITY === 'high', preserveDrawingBuffer: false }}
      onPointerMissed={() => useStudio.getState().set({ selection: null, contact: null })}
      data-testid="viewport"
    >
      <color attach="background" args={['#1b1e24']} />
      <OrbitControls makeDefault enableDamping={false} />
      {scene && <SceneContent scene={scene} />}
    </Canvas>
  );
}
