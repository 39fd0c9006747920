import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, type SceneInfo, type WorkerEvent } from '../../engine/worker/protocol';
import { SimHost } from '../../engine/worker/sim_host';
import { buildSceneTree, pathToBody, type TreeBody } from './scene_tree';

async function sceneInfo(name: string, num_worlds?: number): Promise<SceneInfo> {
  const events: WorkerEvent[] = [];
  const h = new SimHost((e) => events.push(e));
  const text = readFileSync(new URL(`../../scenes/${name}.yaml`, import.meta.url), 'utf8');
  h.handle({
    v: PROTOCOL_VERSION,
    type: 'load_scene',
    source: { kind: 'text', text, file_name: `${name}.yaml` },
    num_worlds,
  });
  await h.idle();
  const r = events.find((e) => e.type === 'ready');
  if (r?.type !== 'ready') throw new Error('not loaded');
  return r.scene;
}

const names = (n: TreeBody): unknown => ({
  [n.label]: [...n.shapes.map((s) => s.type), ...n.children.map(names)],
});

describe('scene tree', () => {
  it('nests a chain under its parents with joints and shapes; replicas are left out', async () => {
    const scene = await sceneInfo('double_pendulum', 3);
    const tree = buildSceneTree(scene);
    expect(tree.label).toBe('world');
    expect(tree.children).toHaveLength(1);
    const upper = tree.children[0];
    expect(upper.label).toBe('upper');
    expect(upper.joint).toEqual({ label: 'shoulder', type: 'revolute' });
    expect(upper.children.map((c) => c.label)).toEqual(['lower']);
    expect(upper.children[0].joint?.label).toBe('elbow');
    expect(pathToBody(tree, 1)).toEqual([-1, 0, 1]);
    expect(pathToBody(tree, 99)).toBeNull();
    expect(names(tree)).toEqual({
      world: [...tree.shapes.map((s) => s.type), { upper: ['capsule', { lower: ['capsule'] }] }],
    });
  });

  it('free bodies hang from the world; static shapes belong to the world', async () => {
    const scene = await sceneInfo('box_stack');
    const tree = buildSceneTree(scene);
    expect(tree.children).toHaveLength(scene.body_count);
    expect(tree.children.every((c) => c.joint?.type === 'free' && c.shapes.length === 1)).toBe(true);
    const statics = scene.shapes.filter((s) => s.body < 0).length;
    expect(tree.shapes).toHaveLength(statics);
  });
});
