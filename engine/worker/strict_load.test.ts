/**
 * The studio's loading policy: a recognized feature the engine does not build is a warning by default
 * and fails the load with `strict: true` (kept on reload); an unknown key fails either way. A dropped
 * SAP Warp folder (scenes/ beside assets/) finds its git-sourced assets.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAP_WARP } from '../io/testing_assets';
import { commandSchema, PROTOCOL_VERSION, type WorkerEvent } from './protocol';
import { SimHost, type SceneLoadOptions } from './sim_host';

const v = PROTOCOL_VERSION;
// one cube whose shape asks for restitution, which the model builder does not store
const SCENE = `schema_version: 1
bodies:
  - id: cube
    transform: { p: [0, 0, 0.5] }
    shapes:
      - { type: box, hx: 0.1, hy: 0.1, hz: 0.1, cfg: { density: 1000, restitution: 0.5 } }
`;
const source = { kind: 'text' as const, text: SCENE, file_name: 'bouncy.yaml' };

function newHost() {
  const events: WorkerEvent[] = [];
  const h = new SimHost((e) => events.push(e));
  const of = <T extends WorkerEvent['type']>(t: T) =>
    events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === t);
  return { h, of };
}

describe('studio loading policy (load_scene strict)', () => {
  it('the protocol accepts strict on load_scene and refuses a non-boolean', () => {
    expect(commandSchema.safeParse({ v, type: 'load_scene', source, strict: true }).success).toBe(true);
    expect(commandSchema.safeParse({ v, type: 'load_scene', source, strict: 'yes' }).success).toBe(false);
  });

  it('lenient by default: the scene loads and the approximation is a warning', async () => {
    const { h, of } = newHost();
    h.handle({ v, type: 'load_scene', source });
    await h.idle();
    const ready = of('ready').at(-1)!;
    expect(ready.scene.warnings).toContain(
      "unsupported: bodies[0].shapes[0].cfg.restitution: shape 'restitution' is not stored by the model builder",
    );
    expect(of('error')).toEqual([]);
  });

  it('strict: the load fails at the key path and the running scene stays; a reload stays strict', async () => {
    const { h, of } = newHost();
    h.handle({ v, type: 'load_scene', source });
    await h.idle();
    const sim = h.sim;
    h.handle({ v, type: 'load_scene', source, strict: true });
    await h.idle();
    const err = of('error').at(-1)!.error;
    expect(err).toMatchObject({
      code: 'load',
      file: 'bouncy.yaml',
      path: 'bodies[0].shapes[0].cfg.restitution',
    });
    expect(err.message).toMatch(/not stored by the model builder/);
    expect(h.sim).toBe(sim);
    // a strict load that succeeds, then a reload with more worlds: still strict
    const plain = { ...source, text: SCENE.replace(', restitution: 0.5', '') };
    h.handle({ v, type: 'load_scene', source: plain, strict: true });
    await h.idle();
    expect(of('ready')).toHaveLength(2);
    h.handle({ v, type: 'reload', num_worlds: 2 });
    await h.idle();
    expect(of('ready')).toHaveLength(3);
    expect((h as unknown as { loadOpts: SceneLoadOptions }).loadOpts).toMatchObject({
      strict: true,
      num_worlds: 2,
    });
  });

  it('the studio toggle: a reload with strict switches the policy both ways, the scene kept on refusal', async () => {
    const { h, of } = newHost();
    h.handle({ v, type: 'load_scene', source, request_id: 1 });
    await h.idle();
    const lenient = h.sim;
    expect(of('ready')).toHaveLength(1);
    // strict on: the same file is refused at its key path; the lenient scene keeps running
    h.handle({ v, type: 'reload', strict: true });
    await h.idle();
    expect(of('ready')).toHaveLength(1);
    expect(of('error').at(-1)!.error.path).toBe('bodies[0].shapes[0].cfg.restitution');
    expect(h.sim).toBe(lenient);
    // a plain reload after the refusal keeps the scene's own (lenient) policy
    h.handle({ v, type: 'reload' });
    await h.idle();
    expect(of('ready')).toHaveLength(2);
    // strict off again: one more ready, with the warning, and no request id (not a new load)
    h.handle({ v, type: 'reload', strict: false });
    await h.idle();
    expect(of('ready')).toHaveLength(3);
    expect(of('ready').at(-1)!.request_id).toBeUndefined();
    expect(
      of('ready')
        .at(-1)!
        .scene.warnings.some((w) => w.startsWith('unsupported: ')),
    ).toBe(true);
    // a strict reload of a file without approximations succeeds and stays strict
    const plain = { ...source, text: SCENE.replace(', restitution: 0.5', '') };
    h.handle({ v, type: 'load_scene', source: plain });
    await h.idle();
    h.handle({ v, type: 'reload', strict: true });
    await h.idle();
    expect(of('ready')).toHaveLength(5);
    expect((h as unknown as { loadOpts: SceneLoadOptions }).loadOpts.strict).toBe(true);
  });

  it('an unknown key fails the load in both modes', async () => {
    for (const strict of [false, true]) {
      const { h, of } = newHost();
      const bad = { ...source, text: SCENE.replace('restitution', 'restitutio') };
      h.handle({ v, type: 'load_scene', source: bad, strict });
      await h.idle();
      expect(of('ready')).toEqual([]);
      expect(of('error').at(-1)!.error.path).toBe('bodies[0].shapes[0].cfg.restitutio');
    }
  });

  it("a dropped SAP Warp folder: basic_ant_usd finds newton's ant.usda under ../assets/newton/", async () => {
    const rel = 'newton/newton/examples/assets/ant.usda';
    const files = new Map([
      ['sap_warp/scenes/basic_ant_usd.yaml', readFileSync(path.join(SAP_WARP, 'scenes/basic_ant_usd.yaml'))],
      [`sap_warp/assets/${rel}`, readFileSync(path.join(SAP_WARP, 'assets', rel))],
    ]);
    const { h, of } = newHost();
    h.handle({
      v,
      type: 'load_scene',
      source: { kind: 'files', files, entry: 'sap_warp/scenes/basic_ant_usd.yaml' },
    });
    await h.idle();
    expect(of('error')).toEqual([]);
    expect(of('ready').at(-1)!.scene.body_count).toBe(9);
  });
});
