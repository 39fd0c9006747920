import { describe, expect, it } from 'vitest';
import {
  MAX_FILES,
  MAX_STEP_N,
  PROTOCOL_VERSION,
  TEST_BUILD,
  parseCommand,
  productionCommandSchema,
} from './protocol';

const ok = (m: unknown) => {
  const r = parseCommand(m);
  if (!r.ok) throw new Error(r.error);
  return r.command;
};
const bad = (m: unknown) => {
  const r = parseCommand(m);
  expect(r.ok).toBe(false);
  return r.ok ? '' : r.error;
};

describe('protocol validation', () => {
  it('accepts every well-formed command', () => {
    const v = PROTOCOL_VERSION;
    const cmds = [
      {
        v,
        type: 'load_scene',
        source: { kind: 'text', text: 'x', file_name: 'a.yaml' },
        num_worlds: 4,
        play: true,
      },
      {
        v,
        type: 'load_scene',
        source: { kind: 'files', files: new Map([['a/b.urdf', new Uint8Array(3)]]), entry: 'a/b.urdf' },
      },
      { v, type: 'reload', num_worlds: 2 },
      {
        v,
        type: 'set_options',
        options: {
          contact_preset_variant: 'drake',
          max_iterations: 5,
          use_f64_boundary_pose: true,
          rho: null,
        },
      },
      { v, type: 'set_sim', dt: 0.001, speed: 0.5, contacts: true },
      { v, type: 'play' },
      { v, type: 'pause' },
      { v, type: 'step', n: 10 },
      { v, type: 'reset' },
      { v, type: 'seek', step: 3 },
      { v, type: 'perturb', body: 2, point: [0, 0, 0.1], target: [1, 2, 3], stiffness: 100 },
      { v, type: 'perturb', body: -1 },
      {
        v,
        type: 'set_control',
        field: 'joint_target_pos',
        dofs: [0, 1],
        values: [0.1, 0.2],
        all_worlds: true,
      },
      { v, type: 'request_ablation', every: 5, now: true },
      { v, type: 'request_trajectory', on: true, every: 5 },
      { v, type: 'request_trajectory', on: false },
      { v, type: 'set_backend', backend: 'webgpu' },
      { v, type: 'set_backend', backend: 'cpu' },
    ];
    for (const c of cmds) expect(ok(c).type).toBe(c.type);
  });

  it('the fault-injection command is in test builds only', () => {
    const debug = { v: PROTOCOL_VERSION, type: 'debug', fault: 'nan', world: 0 };
    expect(TEST_BUILD).toBe(true); // vitest.config.ts defines __SAP_TEST_BUILD__
    expect(ok(debug).type).toBe('debug');
    // the production protocol has no such command
    expect(productionCommandSchema.safeParse(debug).success).toBe(false);
    expect(productionCommandSchema.options.map((o) => o.shape.type.value)).not.toContain('debug');
  });

  it('rejects malformed messages with the key path and reason', () => {
    expect(bad(null)).toMatch(/object/);
    expect(bad({ type: 'play' })).toMatch(/version/);
    expect(bad({ v: 1, type: 'play' })).toMatch(/version 1/);
    expect(bad({ v: PROTOCOL_VERSION, type: 'explode' })).toMatch(/explode\.type/);
    expect(bad({ v: PROTOCOL_VERSION, type: 'step', n: 0 })).toMatch(/^step\.n/);
    expect(bad({ v: PROTOCOL_VERSION, type: 'step', n: MAX_STEP_N + 1 })).toMatch(/step\.n/);
    expect(bad({ v: PROTOCOL_VERSION, type: 'step', n: 1.5 })).toMatch(/step\.n/);
    expect(bad({ v: PROTOCOL_VERSION, type: 'perturb', body: 0, target: [0, NaN, 0] })).toMatch(
      /perturb\.target\[1\]/,
    );
    expect(bad({ v: PROTOCOL_VERSION, type: 'set_sim', speed: 100 })).toMatch(/set_sim\.speed/);
    expect(bad({ v: PROTOCOL_VERSION, type: 'request_trajectory', on: true, every: 0 })).toMatch(
      /request_trajectory\.every/,
    );
    expect(bad({ v: PROTOCOL_VERSION, type: 'request_trajectory' })).toMatch(/request_trajectory\.on/);
    expect(bad({ v: PROTOCOL_VERSION, type: 'set_backend', backend: 'cuda' })).toMatch(
      /set_backend\.backend/,
    );
    expect(bad({ v: PROTOCOL_VERSION, type: 'set_backend' })).toMatch(/set_backend\.backend/);
    // v2 messages (before the backend switch) still mean the same; set_backend needs v3
    expect(ok({ v: 2, type: 'step', n: 2 }).type).toBe('step');
    expect(bad({ v: 2, type: 'set_backend', backend: 'cpu' })).toMatch(
      /set_backend needs protocol version 3/,
    );
    expect(bad({ v: 5, type: 'play' })).toMatch(/version 5 is not 2…4/);
    expect(bad({ v: 3, type: 'cancel_load' })).toMatch(/cancel_load needs protocol version 4/);
    expect(ok({ v: 4, type: 'cancel_load' }).type).toBe('cancel_load');
    expect(ok({ v: 4, type: 'set_backend', backend: 'cpu' }).type).toBe('set_backend');
    expect(bad({ v: PROTOCOL_VERSION, type: 'set_options', options: { rho: { evil: 1 } } })).toMatch(
      /options\.rho/,
    );
    expect(
      bad({ v: PROTOCOL_VERSION, type: 'load_scene', source: { kind: 'text', text: 3, file_name: 'a' } }),
    ).toMatch(/source\.text/);
    expect(
      bad({
        v: PROTOCOL_VERSION,
        type: 'load_scene',
        source: { kind: 'files', files: new Map([['a', 'text']]), entry: 'a' },
      }),
    ).toMatch(/Uint8Array/);
  });

  it('limits file maps', () => {
    const files = new Map<string, Uint8Array>();
    for (let i = 0; i <= MAX_FILES; i++) files.set(`f${i}`, new Uint8Array(0));
    expect(
      bad({ v: PROTOCOL_VERSION, type: 'load_scene', source: { kind: 'files', files, entry: 'f0' } }),
    ).toMatch(/files/);
  });
});
