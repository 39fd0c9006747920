/**
 * Where git-sourced and plain scene assets are found: --asset-root, SAP_STUDIO_ASSET_ROOT, the per-user
 * cache (XDG_CACHE_HOME or ~/.cache, one folder per revision), the folders beside the scene; the
 * priority between them, revision folders, and the error that names every place looked in.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryResolver } from './assets/resolvers';
import { assetCacheDir, assetSearchRoots } from './asset_search';
import { loadModelFile } from './load_file';
import { SceneAssetNotFoundError } from './scene/errors';
import { loadSceneAsync } from './scene/load';
import { cloneCommand, repoName } from './scene/asset_roots';

const REPO = 'https://github.com/acme/tiny-assets.git';
const REV = '0123456789abcdef0123456789abcdef01234567';
const ASSET = 'robots/r.urdf';

/** a one-link URDF whose link name says which place it came from */
const urdf = (where: string) => `<robot name="r"><link name="${where}"><inertial><mass value="1"/>
  <inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial><collision><geometry><sphere radius="0.1"/></geometry>
  </collision></link></robot>`;

const sceneYaml = (source: string) => `schema_version: 1
simulation: { dt: 0.01 }
assets:
  - id: bot
    type: urdf
    floating: false
    source:
${source}
`;
const GIT_SOURCE = `      git:
        repo: ${REPO}
        rev: ${REV}
        sparse: [robots]
        path: ${ASSET}`;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sap-asset-search-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let caseDir = '';
let n = 0;
beforeEach(() => {
  caseDir = path.join(tmp, `case${n++}`);
  mkdirSync(caseDir);
});

/** writes a file under the case folder, creating folders */
function put(rel: string, text: string): string {
  const f = path.join(caseDir, rel);
  mkdirSync(path.dirname(f), { recursive: true });
  writeFileSync(f, text);
  return f;
}

/** the place of each search rule, under the case folder (scene at work/scenes/s.yaml) */
const PLACES = {
  flag: `flag/tiny-assets/${ASSET}`,
  env: `env/tiny-assets/${ASSET}`,
  xdg: `xdg/sap-studio/assets/tiny-assets/${REV}/${ASSET}`,
  home: `home/.cache/sap-studio/assets/tiny-assets/${REV}/${ASSET}`,
  assets: `work/scenes/assets/tiny-assets/${ASSET}`,
  up: `work/assets/tiny-assets/${ASSET}`,
  scene_dir: `work/scenes/tiny-assets/${ASSET}`,
} as const;
type Place = keyof typeof PLACES;

/** loads work/scenes/s.yaml with every search root configured; the loaded link says where it came from */
async function loadWith(opts: { flag?: boolean; env?: boolean; xdg?: boolean } = {}) {
  const scene = put('work/scenes/s.yaml', sceneYaml(GIT_SOURCE));
  return loadModelFile(scene, {
    asset_root: opts.flag === false ? undefined : path.join(caseDir, 'flag'),
    env: {
      ...(opts.env === false ? {} : { SAP_STUDIO_ASSET_ROOT: path.join(caseDir, 'env') }),
      ...(opts.xdg === false ? {} : { XDG_CACHE_HOME: path.join(caseDir, 'xdg') }),
    },
    home: path.join(caseDir, 'home'),
  });
}
const from = (s: { model: { body_label: readonly string[] } }) => s.model.body_label[0].replace(/^bot\//, '');

describe('git-sourced scene assets: the search order', () => {
  it.each(Object.keys(PLACES) as Place[])('found in %s alone', async (place) => {
    put(PLACES[place], urdf(place));
    const s = await loadWith({ xdg: place !== 'home' });
    expect(from(s)).toBe(place);
  });

  it('the first place in the order wins: flag, env, cache, scene/assets, ../assets, the scene folder', async () => {
    const order = Object.keys(PLACES) as Place[];
    for (const p of order) put(PLACES[p], urdf(p));
    // take the places away from the front: the next one is used each time
    for (let k = 0; k < order.length; k++) {
      const s = await loadWith({ xdg: order[k] !== 'home' });
      expect(from(s)).toBe(order[k]);
      rmSync(path.join(caseDir, PLACES[order[k]]));
    }
  });

  it('a root with a <repo>/<rev>/ folder is read there; without one, as is; the cache only per revision', async () => {
    put(`flag/tiny-assets/${ASSET}`, urdf('flag_plain'));
    put(`flag/tiny-assets/${REV}/${ASSET}`, urdf('flag_rev'));
    expect(from(await loadWith())).toBe('flag_rev');
    rmSync(path.join(caseDir, `flag/tiny-assets/${REV}`), { recursive: true });
    expect(from(await loadWith())).toBe('flag_plain');
    // a cache entry of another revision is not used
    rmSync(path.join(caseDir, 'flag'), { recursive: true });
    put(`xdg/sap-studio/assets/tiny-assets/other-rev/${ASSET}`, urdf('xdg_other'));
    put(`xdg/sap-studio/assets/tiny-assets/${ASSET}`, urdf('xdg_plain'));
    put(PLACES.up, urdf('up'));
    expect(from(await loadWith())).toBe('up');
  });

  it('several SAP_STUDIO_ASSET_ROOT folders are searched in order', () => {
    const roots = assetSearchRoots({
      env: { SAP_STUDIO_ASSET_ROOT: ['/a', '/b'].join(path.delimiter), XDG_CACHE_HOME: '/c' },
      asset_root: '/f',
    });
    expect(roots).toEqual([
      { dir: '/f', origin: '--asset-root' },
      { dir: '/a', origin: 'SAP_STUDIO_ASSET_ROOT' },
      { dir: '/b', origin: 'SAP_STUDIO_ASSET_ROOT' },
      { dir: '/c/sap-studio/assets', origin: 'cache', per_rev: true },
    ]);
    // a relative XDG_CACHE_HOME is ignored, as the XDG spec says
    expect(assetCacheDir({ env: { XDG_CACHE_HOME: 'rel' }, home: '/h' })).toBe('/h/.cache/sap-studio/assets');
  });

  it('a missing asset names the repo, rev, path, every place looked in and the commands that fix it', async () => {
    const scene = put('work/scenes/s.yaml', sceneYaml(GIT_SOURCE));
    const err = await loadModelFile(scene, {
      asset_root: path.join(caseDir, 'flag'),
      env: { SAP_STUDIO_ASSET_ROOT: path.join(caseDir, 'env') },
      home: path.join(caseDir, 'home'),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SceneAssetNotFoundError);
    const e = err as SceneAssetNotFoundError;
    expect(e.path).toBe('assets[0].source');
    expect(e.line).toBe(8); // the source's value (its git: block)
    expect(e.git).toMatchObject({ repo: REPO, rev: REV, path: ASSET });
    const cache = path.join(caseDir, 'home/.cache/sap-studio/assets');
    const w = path.join(caseDir, 'work');
    expect(e.tried.map((t) => `${t.origin}: ${t.path}`)).toEqual([
      `--asset-root: ${caseDir}/flag/tiny-assets/${REV}/${ASSET}`,
      `--asset-root: ${caseDir}/flag/tiny-assets/${ASSET}`,
      `SAP_STUDIO_ASSET_ROOT: ${caseDir}/env/tiny-assets/${REV}/${ASSET}`,
      `SAP_STUDIO_ASSET_ROOT: ${caseDir}/env/tiny-assets/${ASSET}`,
      `cache: ${cache}/tiny-assets/${REV}/${ASSET}`,
      `beside the scene: ${w}/scenes/assets/tiny-assets/${REV}/${ASSET}`,
      `beside the scene: ${w}/scenes/assets/tiny-assets/${ASSET}`,
      `beside the scene: ${w}/assets/tiny-assets/${REV}/${ASSET}`,
      `beside the scene: ${w}/assets/tiny-assets/${ASSET}`,
      `beside the scene: ${w}/scenes/tiny-assets/${REV}/${ASSET}`,
      `beside the scene: ${w}/scenes/tiny-assets/${ASSET}`,
    ]);
    const dir = `${cache}/tiny-assets/${REV}`;
    expect(e.message).toContain(`urdf asset 'bot': git ${REPO} @ ${REV} path ${ASSET} not found; looked in:`);
    for (const t of e.tried) expect(e.message).toContain(`\n  ${t.origin}: ${t.path}`);
    expect(e.message).toContain(
      `\n  git clone --filter=blob:none --sparse ${REPO} ${dir} && git -C ${dir} sparse-checkout set robots && git -C ${dir} checkout ${REV}`,
    );
    expect(e.message).toMatch(
      /or give a folder that holds tiny-assets\/robots\/r\.urdf as the asset root \(--asset-root DIR/,
    );
  });

  it('a missing plain path lists the scene folder and the roots, with sap_warp/<path>', async () => {
    const scene = put('work/scenes/s.yaml', sceneYaml('      path: robots/r.urdf'));
    const e = (await loadModelFile(scene, { env: {}, home: path.join(caseDir, 'home') }).then(
      () => undefined,
      (x: unknown) => x,
    )) as SceneAssetNotFoundError;
    expect(e).toBeInstanceOf(SceneAssetNotFoundError);
    expect(e.git).toBeUndefined();
    const w = path.join(caseDir, 'work');
    expect(e.tried.map((t) => t.path)).toEqual([
      `${w}/scenes/robots/r.urdf`,
      `${w}/scenes/assets/robots/r.urdf`,
      `${w}/scenes/assets/sap_warp/robots/r.urdf`,
      `${w}/assets/robots/r.urdf`,
      `${w}/assets/sap_warp/robots/r.urdf`,
      `${w}/scenes/sap_warp/robots/r.urdf`,
    ]);
    expect(e.message).toMatch(/urdf asset 'bot': path robots\/r\.urdf not found; looked in:/);
    // SAP Warp's layout: the plain path is the sap_warp repository's, under ../assets/sap_warp/
    put('work/assets/sap_warp/robots/r.urdf', urdf('sap_warp'));
    expect(from(await loadModelFile(scene, { env: {}, home: path.join(caseDir, 'home') }))).toBe('sap_warp');
  });

  it('a path outside the sparse folders is a warning', async () => {
    put(PLACES.up, urdf('up'));
    const scene = put('work/scenes/s.yaml', sceneYaml(GIT_SOURCE.replace('[robots]', '[meshes]')));
    const s = await loadModelFile(scene, { env: {}, home: path.join(caseDir, 'home') });
    expect(s.warnings).toContain(
      `assets[0].source.git.path: '${ASSET}' lies outside the sparse folders (meshes); a sparse checkout of the repository would not hold it`,
    );
  });
});

describe('asset roots in a memory map (a dropped folder)', () => {
  it("SAP Warp's layout: scenes/ beside assets/ finds the git source under ../assets/<repo>/", async () => {
    const mem = new MemoryResolver({
      'sap_warp/scenes/s.yaml': '',
      [`sap_warp/assets/tiny-assets/${ASSET}`]: urdf('dropped'),
    });
    const doc = {
      schema_version: 1,
      assets: [{ id: 'bot', type: 'urdf', source: { git: { repo: REPO, rev: REV, path: ASSET } } }],
    };
    const s = await loadSceneAsync(doc, { resolver: mem, scene_path: 'sap_warp/scenes/s.yaml' });
    expect(s.model.body_label[0]).toBe('bot/dropped');
  });

  it('a rev that would leave its folder is not used as one', async () => {
    const mem = new MemoryResolver({ 'x/s.yaml': '', [`assets/tiny-assets/${ASSET}`]: urdf('as_is') });
    const doc = {
      schema_version: 1,
      assets: [{ id: 'bot', type: 'urdf', source: { git: { repo: REPO, rev: '../..', path: ASSET } } }],
    };
    const s = await loadSceneAsync(doc, {
      resolver: mem,
      scene_path: 'x/s.yaml',
      asset_roots: [{ dir: 'cache', origin: 'cache', per_rev: true }],
    });
    expect(s.model.body_label[0]).toBe('bot/as_is');
  });

  it('repo names and clone commands', () => {
    expect(repoName('https://github.com/o/newton-assets.git')).toBe('newton-assets');
    expect(repoName('git@github.com:o/x.git/')).toBe('x');
    expect(repoName('https://h/..')).toBe('repo');
    expect(cloneCommand({ repo: 'https://h/o/x.git', path: 'a/b.urdf' }, '/c d')).toBe(
      "git clone --filter=blob:none https://h/o/x.git '/c d/x/HEAD'",
    );
    expect(
      cloneCommand({ repo: 'https://h/o/x.git', rev: 'r1', sparse: ['m'], path: 'a/b.urdf' }, '/c'),
    ).toBe(
      'git clone --filter=blob:none --sparse https://h/o/x.git /c/x/r1 && git -C /c/x/r1 sparse-checkout set m a && git -C /c/x/r1 checkout r1',
    );
  });
});
