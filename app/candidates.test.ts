import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { SAP_WARP } from '../engine/io/testing_assets';
import { shadowHandFolder } from '../e2e/fixtures_loading';
import { rankCandidates } from './candidates';

/** every file under `dir`, keyed by `name/…` as a folder drop names them */
function folder(dir: string, name: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = path.join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(`${name}/${path.relative(dir, p).split(path.sep).join('/')}`, readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

describe('candidate models of a drop', () => {
  it("MuJoCo Menagerie's shadow hand: the two scenes, the hands and keyframes set aside", () => {
    const files = shadowHandFolder();
    const { candidates, setAside } = rankCandidates(files.keys(), (p) => files.get(p));
    expect(candidates.map((c) => c.path)).toEqual([
      'shadow_hand/scene_left.xml',
      'shadow_hand/scene_right.xml',
    ]);
    expect(candidates[0]).toMatchObject({
      kind: 'mjcf',
      tier: 0,
      note: 'MJCF · includes left_hand.xml · floor',
    });
    expect(Object.fromEntries(setAside.map((s) => [s.path, s.reason]))).toEqual({
      'shadow_hand/keyframes.xml': 'MJCF without bodies (a fragment, e.g. keyframes)',
      'shadow_hand/left_hand.xml': 'part of scene_left.xml (shadow_hand/scene_left.xml)',
      'shadow_hand/right_hand.xml': 'part of scene_right.xml (shadow_hand/scene_right.xml)',
    });
    // without sniffing, the extension alone decides: every .xml is offered
    expect(rankCandidates(files.keys()).candidates).toHaveLength(5);
  });

  it("SAP Warp's folder: its twelve scenes first; layers, control files and bookkeeping set aside", () => {
    const files = folder(SAP_WARP, 'sap_warp');
    const { candidates, setAside } = rankCandidates(files.keys(), (p) => files.get(p));
    const scenes = readdirSync(path.join(SAP_WARP, 'scenes'))
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => `sap_warp/scenes/${f}`);
    expect(scenes).toHaveLength(12);
    expect(candidates.slice(0, 12).map((c) => c.path)).toEqual(scenes);
    expect(candidates.slice(0, 12).every((c) => c.kind === 'scene' && c.tier === 0)).toBe(true);
    const aside = new Map(setAside.map((s) => [s.path, s.reason]));
    // the control sequence and the substitutes table are JSON but no scenes
    expect(aside.get('sap_warp/control/franka_panda_cube_pick_place.json')).toBe(
      "not a scene file (top-level key 'model')",
    );
    expect(aside.get('sap_warp/assets/geometry_library_substitutes.json')).toBe(
      'not a scene file (no schema_version)',
    );
    // a robot's payload layers and instanced props are parts of its root layer
    const ur10 = 'sap_warp/assets/newton-assets/universal_robots_ur10/usd';
    expect(aside.get(`${ur10}/Props/ur10_base.usd`)).toBe(
      `part of ur10_instanceable.usda (${ur10}/ur10_instanceable.usda)`,
    );
    expect(aside.get('sap_warp/assets/newton-assets/unitree_h1/usd_structured/Payload/Physics.usda')).toMatch(
      /^part of h1\.usda/,
    );
    const paths = candidates.map((c) => c.path);
    expect(paths).toContain(`${ur10}/ur10_instanceable.usda`);
    expect(paths).toContain('sap_warp/assets/newton-assets/franka_emika_panda/urdf/fr3.urdf');
    // an MJCF scene that includes its robot is likely; the robot it includes is not offered
    const g1 = 'sap_warp/assets/sap_warp/assets/robot/mjcf/unitree_g1_dancing';
    expect(candidates.find((c) => c.path === `${g1}/scene_flat.xml`)?.tier).toBe(0);
    expect(aside.get(`${g1}/unitree_g1_mjlab.xml`)).toMatch(/^part of scene_flat\.xml/);
    expect(paths.some((p) => p.includes('LICENSE') || p.endsWith('.stl'))).toBe(false);
  });

  it('ranks scenes, then URDF, MJCF, USD; shallow first; hidden files and non-model XML never', () => {
    const files = new Map<string, Uint8Array>([
      ['pkg/package.xml', strToU8('<?xml version="1.0"?><package format="3"><name>r</name></package>')],
      ['pkg/.hidden/x.urdf', strToU8('<robot name="x"><link name="a"/></robot>')],
      ['pkg/deep/er/r.urdf', strToU8('<robot name="r"><link name="a"/></robot>')],
      ['pkg/r.urdf', strToU8('<robot name="r"><link name="a"/></robot>')],
      ['pkg/robot_as.xml', strToU8('<!-- a URDF in .xml --><robot name="r"><link name="a"/></robot>')],
      ['pkg/m.xml', strToU8('<mujoco><worldbody><body/></worldbody></mujoco>')],
      ['pkg/s.usda', strToU8('#usda 1.0\n(\n  subLayers = [@./layer.usda@]\n)\n')],
      ['pkg/layer.usda', strToU8('#usda 1.0\ndef Xform "r" {}\n')],
      ['pkg/scene.json', strToU8('{"schema_version": 1, "bodies": []}')],
    ]);
    const { candidates, setAside } = rankCandidates(files.keys(), (p) => files.get(p));
    expect(candidates.map((c) => `${c.path}:${c.kind}`)).toEqual([
      'pkg/scene.json:scene',
      'pkg/r.urdf:urdf',
      'pkg/deep/er/r.urdf:urdf',
      'pkg/m.xml:mjcf',
      'pkg/robot_as.xml:urdf',
      'pkg/s.usda:usd',
    ]);
    expect(setAside.map((s) => s.path).sort()).toEqual(['pkg/layer.usda', 'pkg/package.xml']);
    expect(setAside.find((s) => s.path === 'pkg/package.xml')?.reason).toBe(
      'not MJCF or URDF (<package> root)',
    );
  });
});
