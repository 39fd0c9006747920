/**
 * Trajectory-hash guard: a refactor that should not change physics leaves these hashes equal.
 *
 * Each case loads a model, runs N steps of the CPU `Simulation` and hashes the bits of every
 * step's state (joint_q and joint_qd, as float64 bytes, in order) with SHA-256. The expected
 * hashes are the inline snapshots below.
 *
 * When physics changes on purpose, regenerate them with one command:
 *
 *     npx vitest run engine/pipeline/trajectory_hash.test.ts -u && npx prettier --write engine/pipeline/trajectory_hash.test.ts
 *
 * and say in the commit why they changed. The cases cover the built-in scenes, the SAP Warp
 * scenes, MJCF models with tendons (humanoid), loop-closing equalities and ball joints (Cassie)
 * and joint dry friction (Barkour), the piles (block-sparse and dense factorization, islands),
 * the three presets, the line searches, several worlds, and the JS twins of the WebAssembly
 * kernels (which must give the same bits).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelFile } from '../io/load_file';
import type { LinalgKernels } from '../sap/linalg/wasm/kernels';
import type { LinearSolverMode } from '../sap/solver';
import { Simulation } from './simulation';

const root = path.resolve(__dirname, '../..');
const scenes = path.join(root, 'scenes');
const sapWarp = path.resolve(root, '../shared/reference/sap_warp');
const assets = path.resolve(root, '../shared/assets');

interface HashCase {
  steps: number;
  /** solver options over the model's own */
  solver?: Record<string, unknown>;
  num_worlds?: number;
  keyframe?: string;
  kernels?: LinalgKernels;
  linear_solver?: LinearSolverMode;
}

/** SHA-256 (first 16 hex digits) of joint_q and joint_qd after every one of `c.steps` steps */
async function trajectoryHash(file: string, c: HashCase): Promise<string> {
  const loaded = await loadModelFile(file, {
    num_worlds: c.num_worlds,
    keyframe: c.keyframe,
    asset_root: path.join(sapWarp, 'assets'),
    env: {},
    home: '/nonexistent',
  });
  const sim = new Simulation(loaded.model, {
    dt: loaded.dt,
    solver: { ...loaded.solver, ...c.solver },
    max_rigid_contact: loaded.max_rigid_contact,
  });
  if (c.kernels) sim.solver.kernels = c.kernels;
  if (c.linear_solver) sim.solver.linear_solver = c.linear_solver;
  const h = createHash('sha256');
  const bytes = (a: Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  for (let i = 0; i < c.steps; i++) {
    sim.step();
    h.update(bytes(sim.state.joint_q));
    h.update(bytes(sim.state.joint_qd));
  }
  return h.digest('hex').slice(0, 16);
}

const scene = (name: string) => path.join(scenes, `${name}.yaml`);
const warp = (name: string) => path.join(sapWarp, 'scenes', `${name}.yaml`);
const humanoid = path.join(assets, 'mujoco/humanoid/humanoid.xml');
const cassie = path.join(assets, 'mujoco_menagerie/agility_cassie/scene.xml');
const barkour = path.join(assets, 'mujoco_menagerie/google_barkour_vb/scene.xml');

describe('trajectory hashes: built-in scenes', () => {
  it('arm7', async () =>
    expect(await trajectoryHash(scene('arm7'), { steps: 300 })).toMatchInlineSnapshot(`"0ab410c33aa3dfa5"`));
  it('box_at_rest', async () =>
    expect(await trajectoryHash(scene('box_at_rest'), { steps: 300 })).toMatchInlineSnapshot(
      `"22394ca4122bca08"`,
    ));
  it('box_pyramid', async () =>
    expect(await trajectoryHash(scene('box_pyramid'), { steps: 300 })).toMatchInlineSnapshot(
      `"a675f85995f5ad58"`,
    ));
  it('box_sliding', async () =>
    expect(await trajectoryHash(scene('box_sliding'), { steps: 300 })).toMatchInlineSnapshot(
      `"be27f86bd9663cb0"`,
    ));
  it('box_stack', async () =>
    expect(await trajectoryHash(scene('box_stack'), { steps: 300 })).toMatchInlineSnapshot(
      `"12d9db796b79ee48"`,
    ));
  it('capsules_heightfield', async () =>
    expect(await trajectoryHash(scene('capsules_heightfield'), { steps: 300 })).toMatchInlineSnapshot(
      `"0a4628206e77401e"`,
    ));
  it('cartpole', async () =>
    expect(await trajectoryHash(scene('cartpole'), { steps: 300 })).toMatchInlineSnapshot(
      `"653a6cbb0024da43"`,
    ));
  it('clutter_bin', async () =>
    expect(await trajectoryHash(scene('clutter_bin'), { steps: 300 })).toMatchInlineSnapshot(
      `"b5fab650dc3e60b0"`,
    ));
  it('cylinder_cone_standing', async () =>
    expect(await trajectoryHash(scene('cylinder_cone_standing'), { steps: 300 })).toMatchInlineSnapshot(
      `"076107656f265892"`,
    ));
  it('double_pendulum', async () =>
    expect(await trajectoryHash(scene('double_pendulum'), { steps: 300 })).toMatchInlineSnapshot(
      `"a38c57946395bdc0"`,
    ));
  it('pendulum', async () =>
    expect(await trajectoryHash(scene('pendulum'), { steps: 300 })).toMatchInlineSnapshot(
      `"bf39947442ad3e4b"`,
    ));
  it('rolling_sphere', async () =>
    expect(await trajectoryHash(scene('rolling_sphere'), { steps: 300 })).toMatchInlineSnapshot(
      `"f820385aa495a3b2"`,
    ));
  it('spinning_cube', async () =>
    expect(await trajectoryHash(scene('spinning_cube'), { steps: 300 })).toMatchInlineSnapshot(
      `"8884e6dfaa84ef07"`,
    ));
});

describe('trajectory hashes: piles', () => {
  it('pile_64 (block-sparse)', async () =>
    expect(await trajectoryHash(scene('pile_64'), { steps: 150 })).toMatchInlineSnapshot(
      `"2d258a48a83658e0"`,
    ));
  it('pile_64, dense factorization', async () =>
    expect(
      await trajectoryHash(scene('pile_64'), { steps: 40, linear_solver: 'dense' }),
    ).toMatchInlineSnapshot(`"087e24c1bbd1ab63"`));
  it('pile_64, islands', async () =>
    expect(
      await trajectoryHash(scene('pile_64'), { steps: 150, solver: { solve_islands: true } }),
    ).toMatchInlineSnapshot(`"fc33677ebd6fca70"`));
  it('pile_1000', async () =>
    expect(await trajectoryHash(scene('pile_1000'), { steps: 4 })).toMatchInlineSnapshot(
      `"fbb88e1c757ddc9a"`,
    ));
});

describe('trajectory hashes: SAP Warp scenes', () => {
  it('agilex_piper_urdf', async () =>
    expect(await trajectoryHash(warp('agilex_piper_urdf'), { steps: 200 })).toMatchInlineSnapshot(
      `"7c6477a28a995888"`,
    ));
  it('anymal_c_urdf', async () =>
    expect(await trajectoryHash(warp('anymal_c_urdf'), { steps: 200 })).toMatchInlineSnapshot(
      `"c18f1d448ea500df"`,
    ));
  it('anymal_d_usd', async () =>
    expect(await trajectoryHash(warp('anymal_d_usd'), { steps: 200 })).toMatchInlineSnapshot(
      `"318c71631f315562"`,
    ));
  it('basic_ant_usd', async () =>
    expect(await trajectoryHash(warp('basic_ant_usd'), { steps: 200 })).toMatchInlineSnapshot(
      `"d60875ac3cadeac4"`,
    ));
  it('basic_cartpole_usd', async () =>
    expect(await trajectoryHash(warp('basic_cartpole_usd'), { steps: 200 })).toMatchInlineSnapshot(
      `"56a43ef88ddfcd0f"`,
    ));
  it('franka_panda_cube_urdf', async () =>
    expect(await trajectoryHash(warp('franka_panda_cube_urdf'), { steps: 200 })).toMatchInlineSnapshot(
      `"9bf27d58f1b9955f"`,
    ));
  it('free_cube', async () =>
    expect(await trajectoryHash(warp('free_cube'), { steps: 200 })).toMatchInlineSnapshot(
      `"fa8962392279cfc2"`,
    ));
  it('multi_joints', async () =>
    expect(await trajectoryHash(warp('multi_joints'), { steps: 200 })).toMatchInlineSnapshot(
      `"f1e142a9ede8c80d"`,
    ));
  it('unitree_g1_usd', async () =>
    expect(await trajectoryHash(warp('unitree_g1_usd'), { steps: 200 })).toMatchInlineSnapshot(
      `"07026288f2122195"`,
    ));
  it('unitree_h1_usd', async () =>
    expect(await trajectoryHash(warp('unitree_h1_usd'), { steps: 200 })).toMatchInlineSnapshot(
      `"e291af2f1cb5e11b"`,
    ));
  it('universal_ur10_usd', async () =>
    expect(await trajectoryHash(warp('universal_ur10_usd'), { steps: 200 })).toMatchInlineSnapshot(
      `"ee4965876e4cf165"`,
    ));
});

describe('trajectory hashes: MJCF constraint kinds', () => {
  it('humanoid (tendons, limits)', async () =>
    expect(await trajectoryHash(humanoid, { steps: 300 })).toMatchInlineSnapshot(`"ee4e7b42ee38402d"`));
  it('cassie (connect equalities, ball joints)', async () =>
    expect(await trajectoryHash(cassie, { steps: 200, keyframe: 'home' })).toMatchInlineSnapshot(
      `"560c9321f744f719"`,
    ));
  it('barkour (joint dry friction)', async () =>
    expect(await trajectoryHash(barkour, { steps: 200, keyframe: 'home' })).toMatchInlineSnapshot(
      `"2869f74aed70b88f"`,
    ));
});

describe('trajectory hashes: options', () => {
  it('box_stack, approx64', async () =>
    expect(
      await trajectoryHash(scene('box_stack'), {
        steps: 300,
        solver: { contact_preset_variant: 'approx64' },
      }),
    ).toMatchInlineSnapshot(`"34aff3aa767533c9"`));
  it('box_stack, approx32', async () =>
    expect(
      await trajectoryHash(scene('box_stack'), {
        steps: 300,
        solver: { contact_preset_variant: 'approx32' },
      }),
    ).toMatchInlineSnapshot(`"5168e367494f97b3"`));
  it('franka_panda_cube_urdf, exact_root', async () =>
    expect(
      await trajectoryHash(warp('franka_panda_cube_urdf'), {
        steps: 200,
        solver: { line_search_variant: 'exact_root' },
      }),
    ).toMatchInlineSnapshot(`"69ecb57a1d020652"`));
  it('franka_panda_cube_urdf, monotone_decay', async () =>
    expect(
      await trajectoryHash(warp('franka_panda_cube_urdf'), {
        steps: 200,
        solver: { line_search_variant: 'monotone_decay' },
      }),
    ).toMatchInlineSnapshot(`"e8c13e47335d0761"`));
  it('anymal_c_urdf, 4 worlds', async () =>
    expect(await trajectoryHash(warp('anymal_c_urdf'), { steps: 100, num_worlds: 4 })).toMatchInlineSnapshot(
      `"40bc338dacf94f17"`,
    ));
});

describe('trajectory hashes: the JS twins give the WebAssembly bits', () => {
  it('pile_64', async () => {
    const c: HashCase = { steps: 40 };
    expect(await trajectoryHash(scene('pile_64'), { ...c, kernels: 'js' })).toBe(
      await trajectoryHash(scene('pile_64'), { ...c, kernels: 'wasm' }),
    );
  });
  it('humanoid', async () => {
    const c: HashCase = { steps: 100 };
    expect(await trajectoryHash(humanoid, { ...c, kernels: 'js' })).toBe(
      await trajectoryHash(humanoid, { ...c, kernels: 'wasm' }),
    );
  });
});
