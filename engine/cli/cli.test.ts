/**
 * The CLI: every example in the README runs through `npm run sim`, and --json outputs validate
 * against the schemas in schema.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AblateOutputSchema, InspectOutputSchema, RunOutputSchema } from './schema';
import { zodToJsonSchema } from './json_schema';

const root = path.resolve(__dirname, '../..');

function sim(args: string[]): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, ['scripts/cli.mjs', ...args], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, stdout, stderr: '' };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, stdout: err.stdout, stderr: err.stderr };
  }
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
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
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
    expect(doc.mass_matrix[0][0]).toBeGreaterThan(0);
    expect(doc.joints[0].type).toBe('revolute');
  });

  it('ablate --json validates and reports finite deltas', () => {
    const r = sim(['ablate', 'scenes/box_at_rest.yaml', '--steps', '5', '--json']);
    const doc = AblateOutputSchema.parse(JSON.parse(r.stdout));
    expect(doc.one_step).toHaveLength(5);
    for (const s of doc.one_step) expect(Number.isFinite(s.delta_precision)).toBe(true);
  });

  it('rejects a bad option with a message naming the key and the allowed values', () => {
    const r = sim(['run', 'scenes/box_at_rest.yaml', '--steps', '1', '--set', 'contact_weight_mode=bogus']);
    expect(r.code).toBe(1);
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
    expect(zodToJsonSchema(RunOutputSchema)).toEqual(s);
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
        '--json',
      ],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const res = JSON.parse(stdout) as {
      rows: { scene: string; steps_per_s: number; ratio?: { mujoco?: number } }[];
      peers: { peer: string; steps_per_s: number; thread?: string }[];
      notes: string[];
    };
    expect(res.rows).toHaveLength(1);
    expect(res.rows[0].scene).toBe('arm7');
    expect(res.peers.map((p) => [p.peer, p.thread])).toEqual([['mujoco', 'worker']]);
    expect(res.rows[0].ratio?.mujoco).toBeGreaterThan(0);
    expect(res.notes.filter((n) => /mujoco/.test(n))).toEqual([]);
  }, 120_000);
});
