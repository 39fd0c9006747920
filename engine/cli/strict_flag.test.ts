/**
 * The CLI's loading policy (in process, through `main`): an approximated feature is printed as a
 * `warning: unsupported: …` line and the run goes on; `--strict` refuses the file with the
 * loader's typed error at the key path. A SAP Warp scene finds its assets in ../assets without
 * --asset-root.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SAP_WARP } from '../io/testing_assets';
import { main } from './main';
import { ErrorOutputSchema } from './schema';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sap-cli-strict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

// a cube whose shape asks for restitution, which the model builder does not store
const bouncy = path.join(dir, 'bouncy.yaml');
writeFileSync(
  bouncy,
  `schema_version: 1
bodies:
  - id: cube
    transform: { p: [0, 0, 0.5] }
    shapes:
      - { type: box, hx: 0.1, hy: 0.1, hz: 0.1, cfg: { density: 1000, restitution: 0.5 } }
`,
);

/** runs main with console output captured */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const code = await main(args);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('CLI loading policy', () => {
  it('warns of an approximated feature and runs; --strict refuses it at its key path', async () => {
    const r = await cli(['run', bouncy, '--steps', '20', '--json']);
    expect(r.code).toBe(0);
    expect(r.err).toContain(
      "warning: unsupported: bodies[0].shapes[0].cfg.restitution: shape 'restitution' is not stored by the model builder",
    );
    expect(JSON.parse(r.out).steps).toBe(20);
    const strict = await cli(['run', bouncy, '--steps', '20', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.err).toMatch(
      /^error: SceneUnsupportedError: .*bouncy\.yaml:6:\d+: bodies\[0\]\.shapes\[0\]\.cfg\.restitution: /,
    );
    // with --json: the error document, with the key path and the line
    const doc = ErrorOutputSchema.parse(JSON.parse((await cli(['run', bouncy, '--strict', '--json'])).out));
    expect(doc.error.kind).toBe('scene_unsupported');
    expect(doc.error.location).toMatchObject({ key_path: 'bodies[0].shapes[0].cfg.restitution', line: 6 });
  });

  it('inspect and ablate take --strict too', async () => {
    for (const args of [
      ['inspect', bouncy, '--strict'],
      ['ablate', bouncy, '--steps', '2', '--strict'],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^error: SceneUnsupportedError: /);
    }
    expect((await cli(['inspect', bouncy, '--json'])).code).toBe(0);
  });

  it('a SAP Warp scene without --asset-root reads its git-sourced asset from ../assets', async () => {
    const r = await cli(['run', path.join(SAP_WARP, 'scenes/basic_ant_usd.yaml'), '--steps', '5', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).worlds[0].bodies[0].name).toBe('ant/torso');
  });
});
