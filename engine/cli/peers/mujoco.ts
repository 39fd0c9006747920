/**
 * MuJoCo peer: DeepMind's official WebAssembly build (npm `@mujoco/mujoco`, the canonical bindings
 * maintained in google-deepmind/mujoco/wasm; the older `mujoco-js` 0.0.7 build also runs in Node but
 * is no longer updated). Loaded lazily; when the package is missing the bench reports the peer as
 * unavailable instead of failing.
 */

/** the parts of the MuJoCo module the bench uses */
export interface MjModel {
  nv: number;
  nu: number;
  jnt_qposadr: Int32Array;
  jnt_dofadr: Int32Array;
  /** disableflags: mjtDisableBit bits; cone: mjtCone (pyramidal by default) */
  opt: { timestep: number; disableflags: number; cone: number };
  delete(): void;
}
export interface MjData {
  qpos: Float64Array;
  qvel: Float64Array;
  ctrl: Float64Array;
  /** actuator activations */
  act: Float64Array;
  /** the solver's warm start (the last step's accelerations) */
  qacc_warmstart: Float64Array;
  ncon: number;
  /** constraint rows of the last step (a pyramidal contact of condim 3: 4, an elliptic one: 3) */
  nefc: number;
  /** constraint islands of the last step (solved one by one) */
  nisland: number;
  /** solver iterations per island (the first mjNISLAND islands) */
  solver_niter: Int32Array;
  /** (nbody × 3) each body's COM in the world [m] */
  xipos: Float64Array;
  /** (nbody × 4) each body frame's orientation in the world, wxyz */
  xquat: Float64Array;
  time: number;
  delete(): void;
}
export interface MujocoModule {
  FS: { mkdir(p: string): void; writeFile(p: string, data: string | Uint8Array): void };
  MjModel: { mj_loadXML(path: string): MjModel };
  MjData: new (m: MjModel) => MjData;
  mj_step(m: MjModel, d: MjData): void;
  mj_forward(m: MjModel, d: MjData): void;
  /** resets the data to keyframe `key` (qpos, qvel, act, ctrl, time, mocap) */
  mj_resetDataKeyframe(m: MjModel, d: MjData, key: number): void;
  mj_versionString(): string;
  /** the disable bits (MuJoCo ≥ 3.3.6 has mjDSBL_ISLAND, island discovery) */
  mjtDisableBit?: { mjDSBL_ISLAND?: { value: number } };
  /** the friction cone types */
  mjtCone?: { mjCONE_ELLIPTIC?: { value: number } };
}

/**
 * Turns MuJoCo's constraint-island discovery off (mjDSBL_ISLAND): its solver then runs once over the
 * whole world, as SAP does (and ours with solve_islands off). Returns why it cannot, or null.
 */
export function disableIslands(mj: MujocoModule, m: MjModel): string | null {
  const bit = mj.mjtDisableBit?.mjDSBL_ISLAND?.value;
  if (typeof bit !== 'number') return `MuJoCo ${mj.mj_versionString()} has no mjDSBL_ISLAND flag`;
  m.opt.disableflags |= bit;
  return null;
}

/**
 * Switches MuJoCo's friction cones from its default pyramid (a linearization) to elliptic cones,
 * the Coulomb cone SAP solves. Returns why it cannot, or null.
 */
export function useEllipticCones(mj: MujocoModule, m: MjModel): string | null {
  const cone = mj.mjtCone?.mjCONE_ELLIPTIC?.value;
  if (typeof cone !== 'number') return `MuJoCo ${mj.mj_versionString()} has no mjCONE_ELLIPTIC`;
  m.opt.cone = cone;
  return null;
}

let cached: Promise<MujocoModule | string> | null = null;
let dirCount = 0;

/** the MuJoCo module, or a string saying why it is unavailable */
export function loadMujoco(): Promise<MujocoModule | string> {
  if (!cached) {
    const spec = '@mujoco/mujoco';
    cached = import(/* @vite-ignore */ spec).then(
      async (mod: { default: () => Promise<MujocoModule> }) => {
        const mj = await mod.default();
        return mj;
      },
      (e: unknown) => `@mujoco/mujoco is not installed (${(e as Error).message})`,
    );
  }
  return cached;
}

/** compiles an MJCF document (plus extra files by relative name) into a model and data */
export function mujocoFromXml(
  mj: MujocoModule,
  xml: string,
  files: Record<string, string | Uint8Array> = {},
): { m: MjModel; d: MjData } {
  const dir = `/bench${dirCount++}`;
  mj.FS.mkdir(dir);
  for (const [name, data] of Object.entries(files)) mj.FS.writeFile(`${dir}/${name}`, data);
  mj.FS.writeFile(`${dir}/model.xml`, xml);
  const m = mj.MjModel.mj_loadXML(`${dir}/model.xml`);
  const d = new mj.MjData(m);
  return { m, d };
}
