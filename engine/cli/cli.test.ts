/**
 * The CLI: every example in the README runs through `npm run sim`, and --json outputs validate
 * against the schemas in schema.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AblateOutputSchema, InspectOutputSchema, RunOutputSchema } from './schema';
import { toJsonSchema } from '../io/json_schema';

const root = path.resolve(__dirname, '../..');

function sim(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['scripts/cli.mjs', ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/** `npm run sim -- …` lines of the README's code blocks */
function readmeExamples(): string[][] {
  const text = readFileSync(path.join(root, 'README.md'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.startsWith('npm run sim -- '))
    .map((l) => l.replace(/#.*$/, '').trim().slice('npm run sim -- '.length).split(/\s+/));
}

describe('README CLI examples', () => {
  const examples = readmeExamples();
  it('has examples for run, inspect and ablate', () => {
    const cmds = new Set(examples.map((e) => e[0]));
    for (const c of ['run', 'inspect', 'ablate']) expect(cmds.has(c)).toBe(true);
  });
  for (const args of examples) {
    it(args.join(' '), () => {
      const r = sim(args);
      expect(r.code).toBe(0);
      // no loader warnings on the README's own examples (Dawn may log about Vulkan loaders)
      if (!args.includes('webgpu')) expect(r.stderr).toBe('');
      if (args.includes('--json')) {
        const doc = JSON.parse(r.stdout);
        const schema = { run: RunOutputSchema, inspect: InspectOutputSchema, ablate: AblateOutputSchema }[
          args[0]
        ]!;
        const parsed = schema.safeParse(doc);
        expect(parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))).toBe('');
      } else {
        expect(r.stdout.length).toBeGreaterThan(0);
      }
    });
  }
});

describe('CLI outputs', () => {
  it('run --json carries the documented structure', () => {
    const r = sim(['run', 'scenes/box_at_rest.yaml', '--steps', '50', '--preset', 'drake', '--json']);
    const doc = RunOutputSchema.parse(JSON.parse(r.stdout));
    expect(doc.options.contact_preset_variant).toBe('drake');
    expect(doc.options.contact_weight_mode).toBe('diag_delassus');
    expect(doc.worlds[0].bodies[0].name).toBe('box');
    expect(doc.worlds[0].contacts.length).toBe(4);
    const fz = doc.worlds[0].contacts.reduce((s, c) => s + c.force[2], 0);
    expect(fz).toBeGreaterThan(0);
  });

  it('inspect --json: M symmetric, bias = gravity load at rest', () => {
    const r = sim(['inspect', 'scenes/pendulum.yaml', '--json']);
    const doc = InspectOutputSchema.parse(JSON.parse(r.stdout));
    expect(doc.nv).toBe(1);
    expect(doc.mass_matrix![0][0]).toBeGreaterThan(0);
    expect(doc.mass_matrix_blocks).toEqual([{ dof_start: 0, size: 1, matrix: doc.mass_matrix }]);
    expect(doc.joints[0].type).toBe('revolute');
  });

  it("the loader's warnings and notes reach the user: in inspect's output, on stderr for run (stdout stays JSON)", () => {
    const fr3 = '../shared/assets/newton-assets/franka_emika_panda/urdf/fr3_franka_hand.urdf';
    const i = sim(['inspect', fr3, '--json']);
    expect(i.code).toBe(0);
    const doc = InspectOutputSchema.parse(JSON.parse(i.stdout));
    // the arm's visual DAEs are not in the asset set; the hand's and fingers' load
    expect(doc.warnings).toHaveLength(1);
    // each link with its whole reason: the package's folder is there, the file is not
    expect(doc.warnings[0]).toMatch(
      /visual meshes not loaded on 8 link\(s\).*fr3_link7 \(package:\/\/.*file not found in package 'franka_emika_panda'/,
    );
    expect(sim(['inspect', fr3]).stdout).toMatch(/^warning: visual meshes not loaded on 8 link/m);
    const r = sim(['run', fr3, '--steps', '2', '--json']);
    expect(r.code).toBe(0);
    const run = RunOutputSchema.parse(JSON.parse(r.stdout));
    expect(r.stderr).toMatch(/^warning: visual meshes not loaded on 8 link/m);
    expect(run.warnings).toEqual(doc.warnings);
    // a model without warnings prints none
    const p = sim(['inspect', 'scenes/pendulum.yaml', '--json']);
    expect(InspectOutputSchema.parse(JSON.parse(p.stdout)).warnings).toEqual([]);
    // what the loader did without anything being wrong is a note: ANYmal D (USD) authored with its
    // feet below its base frame, on no floor of its own, stands on the ground the CLI adds
    const anymal = '../shared/assets/newton-assets/anybotics_anymal_d/usd/anymal_d.usda';
    const a = InspectOutputSchema.parse(JSON.parse(sim(['inspect', anymal, '--json']).stdout));
    expect(a.warnings).toEqual([]);
    expect(a.notes).toEqual([expect.stringMatching(/reach 0\.679 m below the ground .* lifted 0\.679 m/)]);
    expect(sim(['run', anymal, '--steps', '1', '--json']).stderr).toMatch(
      /^note: its colliders reach 0\.679 m/m,
    );
  });

  it('ablate --json validates and reports finite deltas', () => {
    const r = sim(['ablate', 'scenes/box_at_rest.yaml', '--steps', '5', '--json']);
    const doc = AblateOutputSchema.parse(JSON.parse(r.stdout));
    expect(doc.one_step).toHaveLength(5);
    for (const s of doc.one_step) expect(Number.isFinite(s.delta_precision)).toBe(true);
  });

  it('rejects a bad option with a message naming the key and the allowed values', () => {
    const r = sim(['run', 'scenes/box_at_rest.yaml', '--steps', '1', '--set', 'contact_weight_mode=bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('contact_weight_mode');
    expect(r.stderr).toContain('body_inertia');
  });

  it('rejects a missing file with a clear error', () => {
    const r = sim(['run', 'scenes/does_not_exist.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/does_not_exist/);
  });

  it('schema prints a JSON Schema', () => {
    const r = sim(['schema', 'run']);
    const s = JSON.parse(r.stdout);
    expect(s.type).toBe('object');
    expect(s.required).toContain('worlds');
    expect(toJsonSchema(RunOutputSchema)).toEqual(s);
  });
});

describe('npm run bench (scripts/cli.mjs bench)', () => {
  it('bundles the CLI, runs it with plain node and times MuJoCo in a worker thread of its own', () => {
    const stdout = execFileSync(
      process.execPath,
      [
        'scripts/cli.mjs',
        'bench',
        'arm7',
        '--preset',
        'approx32',
        '--line-search',
        'monotone_decay',
        '--steps',
        '2',
        '--repeats',
        '1',
        '--settle',
        '2',
        '--warmup-ms',
        '0',
        '--warmup-max-ms',
        '0',
        '--repeat',
        '2',
        '--json',
      ],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const res = JSON.parse(stdout) as {
      rows: { scene: string; steps_per_s: number; ratio?: { mujoco?: number } }[];
      peers: { peer: string; steps_per_s: number; thread?: string }[];
      notes: string[];
      repeat_check?: { runs: number; ratios: { peer: string; values: (number | null)[] }[] };
    };
    expect(res.rows).toHaveLength(1);
    // --repeat 2: the whole bench twice, each row's ratio from either run
    expect(res.repeat_check?.runs).toBe(2);
    expect(res.repeat_check?.ratios.map((e) => [e.peer, e.values[1]])).toEqual([
      ['mujoco', res.rows[0].ratio?.mujoco],
    ]);
    expect(res.rows[0].scene).toBe('arm7');
    expect(res.peers.map((p) => [p.peer, p.thread])).toEqual([['mujoco', 'worker']]);
    expect(res.rows[0].ratio?.mujoco).toBeGreaterThan(0);
    expect(res.notes.filter((n) => /mujoco/.test(n))).toEqual([]);
  }, 120_000);
});

describe("SAP Warp's Franka pick-and-place (franka_panda_cube_urdf.yaml, its control: sequence)", () => {
  it('npm run sim -- run … --asset-root …: the gripper lifts the cube ≥ 5 cm and sets it down at the place side', () => {
    const sapWarp = path.join(root, '../shared/reference/sap_warp');
    const r = sim([
      'run',
      path.join(sapWarp, 'scenes/franka_panda_cube_urdf.yaml'),
      '--asset-root',
      path.join(sapWarp, 'assets'),
      '--duration',
      '9',
      '--trace',
      '100',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const doc = RunOutputSchema.parse(JSON.parse(r.stdout));
    // cube_free's coordinates follow the arm's 7 and the fingers' 2 (the control file's
    // joint_target_pos_columns order): the free joint's position is joint_q[9..11]
    const cubeAt = (t: number): number[] => {
      const row = doc.trace!.find((s) => Math.abs(s.time - t) < 1e-9)!;
      return row.joint_q[0].slice(9, 12);
    };
    const start = cubeAt(0);
    expect(start).toEqual([0.35, -0.15, 0.02]); // the scene's pick position
    // the schedule: close_gripper 3.8 s, lift_mid 4.8 s, lift_clear 5.5 s, translate_to_place 6.7 s,
    // release 7.8 s; the hand rises ~0.17 m between 4.2 and 5.5 s
    const [x, y, z] = cubeAt(5.5);
    expect(z - start[2]).toBeGreaterThan(0.05);
    // lifted straight up between the fingers, not dragged or flung
    expect(Math.hypot(x - start[0], y - start[1])).toBeLessThan(0.015);
    // still held mid-transfer
    expect(cubeAt(6.5)[2] - start[2]).toBeGreaterThan(0.05);
    // released over the place side (0.35, 0.18) and resting on the ground
    const cube = doc.worlds[0].bodies.find((b) => b.name === 'small_cube')!;
    const [ex, ey, ez] = cube.position;
    expect(Math.hypot(ex - 0.35, ey - 0.18)).toBeLessThan(0.03);
    expect(Math.abs(ez - 0.02)).toBeLessThan(0.003);
  }, 180_000);
});
