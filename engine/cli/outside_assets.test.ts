/**
 * The CLI reads a model's files only from the model's folder (its package folder for `urdf/`,
 * `scenes/`, … subfolders) and the asset roots (`--asset-root`, SAP_STUDIO_ASSET_ROOT, the cache):
 * an absolute path, a `..` climb, a `package://` name matching a folder far above, or a link out of
 * the folder in a URDF, MJCF or USD reference (a USDZ's layers included) is refused with an
 * `outside_asset` error naming the file and the reference; `--allow-outside-assets` reads it.
 * Through the real entry (scripts/cli.mjs), on files generated here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorOutputSchema } from './schema';

const root = path.resolve(__dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'sap-cli-outside-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sim(
  args: string[],
  env: Record<string, string> = {},
): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['scripts/cli.mjs', ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SAP_STUDIO_ASSET_ROOT: '', ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/** the --json error document of a refused command */
function refusal(args: string[], env?: Record<string, string>) {
  const r = sim([...args, '--json'], env);
  expect(r.code).toBe(1);
  const doc = ErrorOutputSchema.parse(JSON.parse(r.stdout));
  return doc.error;
}

const write = (p: string, text: string | Uint8Array) => {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text);
};

// a tetrahedron, the one mesh every model below reads
const STL = `solid t
facet normal 0 0 -1
outer loop
vertex 0 0 0
vertex 0.1 0 0
vertex 0 0.1 0
endloop
endfacet
facet normal 0 -1 0
outer loop
vertex 0 0 0
vertex 0 0 0.1
vertex 0.1 0 0
endloop
endfacet
facet normal -1 0 0
outer loop
vertex 0 0 0
vertex 0 0.1 0
vertex 0 0 0.1
endloop
endfacet
facet normal 1 1 1
outer loop
vertex 0.1 0 0
vertex 0 0 0.1
vertex 0 0.1 0
endloop
endfacet
endsolid t
`;
const secret = path.join(dir, 'elsewhere', 'secret.stl');
write(secret, STL);

/** a one-link URDF whose collider is the mesh `ref` */
const urdf = (ref: string) => `<robot name="r"><link name="base">
  <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry><mesh filename="${ref}"/></geometry></collision></link></robot>`;

/** an MJCF model whose one geom is the mesh file `ref` */
const mjcf = (ref: string) => `<mujoco><asset><mesh name="m" file="${ref}"/></asset>
  <worldbody><body><freejoint/><geom type="mesh" mesh="m" mass="1"/></body></worldbody></mujoco>`;

describe('CLI asset references stay inside the model folder and the asset roots', () => {
  it("a ROS package's urdf/ reads its meshes/ beside it; a climb out of the package is refused", () => {
    write(path.join(dir, 'pkg', 'meshes', 'a.stl'), STL);
    const inside = path.join(dir, 'pkg', 'urdf', 'inside.urdf');
    write(inside, urdf('../meshes/a.stl'));
    expect(sim(['inspect', inside]).code).toBe(0);

    const climb = path.join(dir, 'pkg', 'urdf', 'climb.urdf');
    write(climb, urdf('../../elsewhere/secret.stl'));
    const e = refusal(['inspect', climb]);
    expect(e.kind).toBe('outside_asset');
    expect(e.location?.file).toBe(climb);
    expect(e.message).toContain(`reference '../../elsewhere/secret.stl' resolves to ${secret}`);
    expect(e.message).toMatch(/outside the model's folder and the asset roots .*--allow-outside-assets/);
    // the flag reads it
    expect(sim(['inspect', climb, '--allow-outside-assets']).code).toBe(0);
  });

  it('absolute paths in MJCF are refused unless they lie in an asset root', () => {
    const m = path.join(dir, 'mj', 'abs.xml');
    write(m, mjcf(secret));
    const e = refusal(['inspect', m]);
    expect(e.kind).toBe('outside_asset');
    expect(e.location?.file).toBe(m);
    expect(e.message).toContain(`reference '${secret}' lies outside the model's folder`);
    expect(sim(['inspect', m, '--asset-root', path.dirname(secret)]).code).toBe(0);
    expect(sim(['inspect', m], { SAP_STUDIO_ASSET_ROOT: path.dirname(secret) }).code).toBe(0);
    expect(sim(['inspect', m, '--allow-outside-assets']).code).toBe(0);
  });

  it('a package:// name that matches a folder far above the model (package://etc/passwd) is refused', () => {
    const p = path.join(dir, 'ros', 'robot.urdf');
    write(p, urdf('package://etc/passwd'));
    const e = refusal(['inspect', p]);
    expect(e.kind).toBe('outside_asset');
    expect(e.message).toContain("reference 'package://etc/passwd' resolves to /etc/passwd");
  });

  it('a link inside the model folder that points out of it is refused', () => {
    const d = path.join(dir, 'linked');
    mkdirSync(d, { recursive: true });
    symlinkSync(secret, path.join(d, 'mesh.stl'));
    const m = path.join(d, 'model.xml');
    write(m, mjcf('mesh.stl'));
    const e = refusal(['inspect', m]);
    expect(e.kind).toBe('outside_asset');
    expect(e.location?.file).toBe(m);
    expect(e.message).toContain(
      `reference 'mesh.stl' resolves to ${path.join(d, 'mesh.stl')} (a link to ${secret})`,
    );
    expect(sim(['inspect', m, '--allow-outside-assets']).code).toBe(0);
  });

  it("a USDZ's layer that references an absolute host path is refused, naming the archive and the reference", () => {
    const outsideLayer = path.join(dir, 'elsewhere', 'host.usda');
    write(outsideLayer, '#usda 1.0\ndef Xform "Host"\n{\n}\n');
    const root = `#usda 1.0\n(\n    subLayers = [@${outsideLayer}@]\n)\ndef Xform "World"\n{\n}\n`;
    const usdz = path.join(dir, 'archives', 'pkg.usdz');
    write(usdz, zipSync({ 'root.usda': [strToU8(root), { level: 0 }] }));
    const e = refusal(['inspect', usdz]);
    expect(e.kind).toBe('outside_asset');
    expect(e.location?.file).toBe(usdz);
    expect(e.message).toContain(`reference '${outsideLayer}' lies outside the model's folder`);
  });
});
