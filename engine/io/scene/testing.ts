/** shared helpers of the scene tests (not part of the public API) */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** the SAP Warp example scenes, read in place from the shared reference (never copied into the repo) */
export const SAP_WARP_SCENES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../shared/reference/sap_warp/scenes',
);

export function sceneFiles(): string[] {
  return readdirSync(SAP_WARP_SCENES)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

export function readScene(file: string): string {
  return readFileSync(path.join(SAP_WARP_SCENES, file), 'utf8');
}

/** the example scenes whose content is inline (no assets) */
export const INLINE_SCENES = ['basic_cartpole_usd.yaml', 'free_cube.yaml', 'multi_joints.yaml'];

/** a minimal valid inline scene: a chain of revolute joints under one free base, as a plain document */
export function chainScene(links = 4): Record<string, unknown> {
  const bodies = [];
  const joints = [];
  for (let i = 0; i < links; i++) {
    bodies.push({
      id: `l${i}`,
      transform: { p: [0, 0, 1 + i * 0.3], q: 'identity' },
      shapes: [{ type: 'box', hx: 0.05, hy: 0.05, hz: 0.1 }],
    });
    joints.push(
      i === 0
        ? { id: 'base', type: 'free', parent: 'world', child: 'l0' }
        : {
            id: `j${i}`,
            label: `arm/j${i}`,
            type: 'revolute',
            parent: `l${i - 1}`,
            child: `l${i}`,
            axis: 'y',
            parent_xform: { p: [0, 0, 0.15] },
            child_xform: { p: [0, 0, -0.15] },
          },
    );
  }
  return {
    schema_version: 1,
    name: 'chain',
    simulation: { dt: 0.01, num_worlds: 1, max_rigid_contact: 16 },
    builder: { gravity: -9.81, defaults: { shape: { density: 500 } } },
    ground: false,
    bodies,
    joints,
    articulations: [{ id: 'chain', joints: joints.map((j) => j.id) }],
  };
}
