/**
 * The README's library example is this folder's quickstart.ts, word for word, and it runs as a user
 * runs it (`npx tsx examples/quickstart.ts`, importing the package by its name) with the result an
 * in-process simulation of the same model gives.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulation, loadModelFile } from '../engine/node';

const root = path.resolve(__dirname, '..');

describe('the README library example', () => {
  const script = readFileSync(path.join(__dirname, 'quickstart.ts'), 'utf8');

  it('is quickstart.ts verbatim, in a ts block of the README, about 15 lines', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme).toContain('```ts\n' + script + '```');
    expect(script.trim().split('\n').length).toBeLessThanOrEqual(16);
  });

  it('runs through the package name and prints the pose the engine computes', async () => {
    const r = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'examples/quickstart.ts'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const m = /^t = 1\.000 s, forearm at \[([^\]]*)\] quaternion \[([^\]]*)\]$/m.exec(
      r.stdout.replace(/\s+/g, ' ').trim(),
    );
    expect(m).not.toBeNull();
    const printed = [...m![1].split(','), ...m![2].split(',')].map(Number);

    const robot = await loadModelFile(path.join(root, 'examples/double_pendulum.urdf'));
    const sim = new Simulation(robot.model, { dt: robot.dt, solver: { contact_preset_variant: 'drake' } });
    for (let i = 0; i < 200; i++) sim.step();
    const b = robot.model.body_label.indexOf('forearm');
    expect(printed).toEqual(Array.from(sim.state.body_q.subarray(7 * b, 7 * b + 7)));
    // it swung: the forearm started level at the shoulder's height, 1.2 m
    expect(printed[2]).toBeLessThan(1.15);
  });
});
