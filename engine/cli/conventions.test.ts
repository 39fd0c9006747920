/**
 * The CLI's conventions, through the real process (`node scripts/cli.mjs`, as `npm run sim` runs
 * it): help and version, exit codes, the JSON error document, output written in full through a
 * pipe read slowly, divergence reported, `--duration`, `--trace` solver stats.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AblateOutputSchema, ErrorOutputSchema, InspectOutputSchema, RunOutputSchema } from './schema';

const root = path.resolve(__dirname, '../..');
const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string })
  .version;

function sim(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['scripts/cli.mjs', ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** runs the CLI with stdout on a pipe that is not read for `delayMs`, then read in small pieces */
function simSlowReader(args: string[], delayMs: number): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['scripts/cli.mjs', ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const chunks: Buffer[] = [];
    p.stdout.pause();
    setTimeout(() => {
      p.stdout.on('readable', () => {
        // a reader that takes 4 KiB at a time
        let c: Buffer | null;
        while ((c = p.stdout.read(4096) as Buffer | null) !== null) chunks.push(c);
      });
    }, delayMs);
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(chunks).toString('utf8') }));
  });
}

describe('help, version and exit codes', () => {
  it('--help and -h print the usage and exit 0; a command has its own help', () => {
    for (const flag of ['--help', '-h']) {
      const r = sim([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^usage: npm run sim -- <command>/);
      expect(r.stdout).toMatch(/exit codes: 0 ok; 1 the run failed or diverged.*; 2 usage/);
    }
    const run = sim(['run', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run sim -- run MODEL/);
    expect(run.stdout).toMatch(/--duration S/);
    expect(sim(['ablate', '-h']).stdout).toMatch(/^usage: npm run sim -- ablate SCENE/);
  });

  it('--version prints the package version', () => {
    const r = sim(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`sap-studio ${version}`);
    expect(JSON.parse(sim(['--version', '--json']).stdout)).toEqual({ name: 'sap-studio', version });
  });

  it('usage errors exit 2 without a stack trace; no command prints the usage on stderr', () => {
    const none = sim([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^usage:/);
    for (const args of [
      ['run', 'scenes/pendulum.yaml', '--bogus'],
      ['run', 'scenes/pendulum.yaml', '--steps', 'ten'],
      ['run', 'scenes/pendulum.yaml', '--steps', '5', '--duration', '1'],
      ['run'],
      ['frobnicate'],
      ['schema', 'nope'],
    ]) {
      const r = sim(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(/TypeError|at .*\.mjs:\d+/);
    }
  });

  it('with --json every failure is one error document on stdout: usage (2), a missing file (1), a scene error with its key path (1)', () => {
    const usage = sim(['run', 'scenes/pendulum.yaml', '--bogus', '--json']);
    expect(usage.code).toBe(2);
    const u = ErrorOutputSchema.parse(JSON.parse(usage.stdout));
    expect(u.error.kind).toBe('usage');
    expect(u.error.message).toMatch(/--bogus/);

    const missing = sim(['run', 'scenes/does_not_exist.yaml', '--json']);
    expect(missing.code).toBe(1);
    const m = ErrorOutputSchema.parse(JSON.parse(missing.stdout));
    expect(m.error.kind).toBe('file_not_found');
    expect(m.error.location?.file).toBe('scenes/does_not_exist.yaml');

    const dir = mkdtempSync(path.join(tmpdir(), 'sap-cli-'));
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      readFileSync(path.join(root, 'scenes/box_at_rest.yaml'), 'utf8').replace('density:', 'densty:'),
    );
    const scene = sim(['run', bad, '--json']);
    expect(scene.code).toBe(1);
    const s = ErrorOutputSchema.parse(JSON.parse(scene.stdout));
    expect(s.error.kind).toBe('scene_validation');
    expect(s.error.location?.key_path).toMatch(/densty$/);
    expect(s.error.location?.line).toBeGreaterThan(0);

    // the error document's schema is published like the others
    expect(JSON.parse(sim(['schema', 'error']).stdout).required).toEqual(['error']);
  });
});

describe('output is never cut', () => {
  it('a 10 MB --json trace arrives whole through a pipe that is read late and slowly', async () => {
    const r = await simSlowReader(
      ['run', 'scenes/box_stack.yaml', '--steps', '13000', '--trace', '1', '--json'],
      1500,
    );
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(10_000_000);
    const doc = RunOutputSchema.parse(JSON.parse(r.stdout));
    expect(doc.trace).toHaveLength(13001);
  }, 120_000);
});

describe('run: status, divergence, duration and trace', () => {
  it('a box stack at dt = 1 s falls through the floor: status diverged with the bodies named, exit 1', () => {
    const r = sim(['run', 'scenes/box_stack.yaml', '--dt', '1', '--steps', '20', '--json']);
    expect(r.code).toBe(1);
    const doc = RunOutputSchema.parse(JSON.parse(r.stdout));
    expect(doc.stats.status).toBe('diverged');
    expect(doc.stats.failed_step).toBeGreaterThan(0);
    expect(doc.stats.reason).toMatch(/box\d+ overlap by [\d.]+ m, more than the smaller shape's size/);
    // the text output says it on stderr
    const t = sim(['run', 'scenes/box_stack.yaml', '--dt', '1', '--steps', '20']);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/^diverged: step \d+ \(t = /m);
    // at its own dt the same stack converges and exits 0
    const ok = sim(['run', 'scenes/box_stack.yaml', '--steps', '20', '--json']);
    expect(ok.code).toBe(0);
    const okDoc = RunOutputSchema.parse(JSON.parse(ok.stdout));
    expect(okDoc.stats).toMatchObject({ status: 'converged', reason: null, failed_step: null });
  });

  it('the solver stopping at max_iterations is reported with its reason and exit 1', () => {
    const r = sim(['run', 'scenes/box_stack.yaml', '--steps', '20', '--set', 'max_iterations=1', '--json']);
    expect(r.code).toBe(1);
    const doc = RunOutputSchema.parse(JSON.parse(r.stdout));
    expect(doc.stats.status).toBe('max_iterations');
    expect(doc.stats.reason).toMatch(/Newton stopped at its limit of 1 iterations/);
  });

  it('--duration S takes round(S / dt) steps; --trace K carries each sampled step’s solver stats', () => {
    const r = sim(['run', 'scenes/box_stack.yaml', '--duration', '0.1', '--trace', '5', '--json']);
    expect(r.code).toBe(0);
    const doc = RunOutputSchema.parse(JSON.parse(r.stdout));
    expect(doc.steps).toBe(Math.round(0.1 / doc.dt));
    expect(doc.time).toBeCloseTo(0.1, 12);
    expect(doc.trace).toHaveLength(doc.steps / 5 + 1);
    expect(doc.trace![0].step).toBeUndefined();
    const last = doc.trace![doc.trace!.length - 1].step!;
    expect(last.status).toBe('converged');
    expect(last.contacts[0]).toBe(doc.worlds[0].contacts.length);
    expect(last.iterations[0]).toBeGreaterThanOrEqual(0);
  });

  it('ablate --json carries the per-world and max-abs norms and the loader messages', () => {
    const r = sim(['ablate', 'scenes/box_stack.yaml', '--steps', '3', '--num-worlds', '2', '--json']);
    // ablate takes no --num-worlds: a usage error
    expect(r.code).toBe(2);
    const a = sim(['ablate', 'scenes/box_stack.yaml', '--steps', '3', '--json']);
    expect(a.code).toBe(0);
    const doc = AblateOutputSchema.parse(JSON.parse(a.stdout));
    expect(doc.warnings).toEqual([]);
    for (const s of doc.one_step) {
      expect(s.per_world.precision).toHaveLength(1);
      expect(s.per_world.precision[0]).toBeCloseTo(s.delta_precision, 15);
      expect(s.max_abs.model).toBeLessThanOrEqual(s.delta_model);
      expect(s.max_abs.model).toBeGreaterThan(0);
    }
  });
});

describe('inspect scales', () => {
  it('a 4096-sphere model inspects within 400 MB of heap: M(q) as per-tree blocks, dense only with --dense on small models', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sap-cli-inspect-'));
    const file = path.join(dir, 'spheres_4096.yaml');
    const bodies: string[] = [];
    for (let i = 0; i < 4096; i++) {
      const [x, y, z] = [i % 16, Math.floor(i / 16) % 16, Math.floor(i / 256)].map((k) =>
        (k * 0.12).toFixed(2),
      );
      bodies.push(
        `  - { id: s${i}, transform: { p: [${x}, ${y}, ${z}] }, shapes: [{ type: sphere, radius: 0.05 }] }`,
      );
    }
    writeFileSync(
      file,
      `schema_version: 1\nname: spheres_4096\nsimulation: { dt: 0.002, max_rigid_contact: 16384 }\nbuilder: { defaults: { shape: { density: 1000 } } }\nground: true\nbodies:\n${bodies.join('\n')}\n`,
    );
    const r = spawnSync(process.execPath, ['scripts/cli.mjs', 'inspect', file, '--json'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=400' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const doc = InspectOutputSchema.parse(JSON.parse(r.stdout));
    expect(doc.nv).toBe(4096 * 6);
    expect(doc.mass_matrix).toBeNull();
    expect(doc.mass_matrix_blocks).toHaveLength(4096);
    // a sphere of 5 cm at 1000 kg/m³: m = 4/3 π r³ ρ, I = 2/5 m r² (angular block first)
    const mass = (4 / 3) * Math.PI * 0.05 ** 3 * 1000;
    const b = doc.mass_matrix_blocks[4095];
    expect(b).toMatchObject({ dof_start: 4095 * 6, size: 6 });
    expect(b.matrix[0][0]).toBeCloseTo(0.4 * mass * 0.05 ** 2, 12);
    expect(b.matrix[5][5]).toBeCloseTo(mass, 12);
    // the text report stays short
    const t = sim(['inspect', file]);
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/block-diagonal over 4096 trees \(4096 of 6×6\); --dense writes it whole/);
    expect(t.stdout.length).toBeLessThan(2_000_000);
  }, 120_000);
});
