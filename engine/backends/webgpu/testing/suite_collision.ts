/**
 * GPU collision parity (collision.ts, shaders/kernels/collision.wgsl): random primitive
 * configurations in many worlds, collided by the GPU kernels (NaN-prefilled outputs) and by the CPU
 * pipeline (the twin: SapCollisionPipeline with its default options). Counts, truncation, order
 * (shape pair and feature id of every slot), bodies identical; witnesses, normals and φ₀ within the
 * df64 stage tolerance (normwise relative, see parity.ts).
 *
 * One model covers every GPU pair type: capsules and boxes share collision group 2, spheres (−2,
 * −3), the ground and a tilted finite plane (−1) meet everything. Worlds differ by their random
 * initial poses (collision_fixtures.ts): scattered and interpenetrating, resting face on face
 * (aligned boxes, the clipping's degenerate cases; capsules lying on boxes), separated inside the
 * gap band, randomly rotated columns (edge, vertex and closest-point cases). Capsule–box must have
 * contacts in every one of these four pose modes.
 */
import { expect, it } from 'vitest';
import { SapCollisionPipeline } from '../../../collision/pipeline';
import { makeState } from '../../../kinematics';
import { CpuBackend } from '../../cpu/cpu_backend';
import { GPU_ROUTINES, gpuCollisionPlan } from '../collision';
import type { GpuHandle } from '../device';
import { collisionModel, compareContacts, gpuCollide, randomizeWorlds } from './collision_fixtures';
import { TOL_DF64, loadRepoScene } from './parity';
import { STAGE_TABLE } from './suite_stages';
import { STEP_TABLE, TrajectoryError } from './suite_step';
import { BackendSimulation } from '../../simulation';
import { WebGpuBackend } from '../webgpu_backend';

export function collisionParityTests(gpu: () => GpuHandle): void {
  const cases: [string, number, number][] = [
    // name, worlds, capacity
    ['random primitives, 16 worlds', 16, 128],
    ['random primitives, capacity 6 (truncation)', 8, 6],
  ];
  cases.forEach(([name, worlds, capacity], ci) => {
    it(`collision: ${name} matches the CPU pipeline`, async () => {
      const m = collisionModel(worlds);
      expect(gpuCollisionPlan(m).supported, gpuCollisionPlan(m).reason).toBe(true);
      const cpu = new CpuBackend();
      await cpu.init(m, {});
      let worst = { point: 0, normal: 0, phi0: 0 };
      const types = new Set<string>();
      const byMode = [0, 1, 2, 3].map(() => new Set<string>());
      let contacts = 0,
        truncated = 0;
      for (let trial = 0; trial < 3; trial++) {
        const state = makeState(m);
        randomizeWorlds(m, state, 1000 * ci + trial + 1);
        cpu.updateBodyState(state);
        const pipe = new SapCollisionPipeline(m, { rigid_contact_max: capacity });
        const ref = pipe.contacts();
        pipe.collide(state, ref);
        const got = await gpuCollide(gpu(), m, state, capacity);
        const r = compareContacts(m, got, ref);
        expect(r.mismatches, `trial ${trial}: contact lists differ`).toBe(0);
        worst = {
          point: Math.max(worst.point, r.point),
          normal: Math.max(worst.normal, r.normal),
          phi0: Math.max(worst.phi0, r.phi0),
        };
        r.pairTypes.forEach((t) => types.add(t));
        r.pairTypesByMode.forEach((ts, mode) => ts.forEach((t) => byMode[mode].add(t)));
        contacts += r.contacts;
        truncated += r.truncated;
      }
      STAGE_TABLE[`collision (${name})`] = { ...worst, contacts, truncated, tolerance: TOL_DF64 };
      console.log(`collision parity (${name}):`, {
        ...worst,
        contacts,
        truncated,
        types: [...types].join(' '),
      });
      for (const v of Object.values(worst)) expect(v).toBeLessThanOrEqual(TOL_DF64);
      if (capacity < 10) expect(truncated).toBeGreaterThan(0);
      else {
        for (const t of GPU_ROUTINES) expect([...types], `pair type ${t} exercised`).toContain(t);
        // penetrating, resting, separated in the band, rotated
        byMode.forEach((b, mode) =>
          expect([...b], `capsule–box in pose mode ${mode}`).toContain('capsule–box'),
        );
      }
    });
  });
}

/**
 * box_stack (plane–box and box–box) over `steps` steps with GPU collision: every step's contact list
 * equals the CPU pipeline's (counts, order, features; geometry within the df64 tolerance) and the
 * trajectory stays within the whole-step tolerance; the same run with CPU collision on the GPU
 * backend is reported beside it.
 */
export function collisionStepTest(gpu: () => GpuHandle, steps = 100): void {
  it(`box_stack: ${steps} steps with GPU collision match the CPU reference, contact lists identical`, async () => {
    const sc = loadRepoScene('box_stack');
    const m = sc.model;
    const init = { solver: sc.solver, max_rigid_contact: sc.max_rigid_contact };
    const simOpts = { dt: sc.dt, max_rigid_contact: sc.max_rigid_contact };
    const gb = new WebGpuBackend(gpu());
    await gb.init(m, init);
    const gc = new WebGpuBackend(gpu());
    gc.gpu_collision = false;
    await gc.init(m, init);
    const cb = new CpuBackend();
    await cb.init(m, init);
    expect(gb.collides_on_device, gb.collision_info).toBe(true);
    expect(gc.collides_on_device).toBe(false);
    const simG = new BackendSimulation(m, gb, simOpts);
    const simGc = new BackendSimulation(m, gc, simOpts);
    const simC = new BackendSimulation(m, cb, simOpts);
    const errG = new TrajectoryError(),
      errGc = new TrajectoryError();
    let worst = { point: 0, normal: 0, phi0: 0 };
    let mismatches = 0,
      contacts = 0;
    const t = [0, 0];
    try {
      for (let s = 0; s < steps; s++) {
        await simC.step();
        // the contacts of this step's input state, as the CPU pipeline computes them from the
        // GPU run's own state
        const pipe = simGc.collision;
        const ref = pipe.contacts();
        pipe.collide(simG.state, ref);
        let t0 = performance.now();
        await simG.step();
        t[0] += performance.now() - t0;
        t0 = performance.now();
        await simGc.step();
        t[1] += performance.now() - t0;
        const r = compareContacts(m, simG.contacts, ref);
        mismatches += r.mismatches;
        contacts += r.contacts;
        worst = {
          point: Math.max(worst.point, r.point),
          normal: Math.max(worst.normal, r.normal),
          phi0: Math.max(worst.phi0, r.phi0),
        };
        errG.addState(simG.state, simC.state);
        errGc.addState(simGc.state, simC.state);
      }
    } finally {
      gb.dispose();
      gc.dispose();
    }
    STAGE_TABLE['collision (box_stack, every step)'] = { ...worst, contacts, tolerance: TOL_DF64 };
    STEP_TABLE[`box_stack/${String(sc.solver.contact_preset_variant)}: GPU collision`] = {
      ...errG.errors(),
      tolerance: TOL_DF64,
      gpu_ms_per_step: +(t[0] / steps).toFixed(1),
    };
    STEP_TABLE[`box_stack/${String(sc.solver.contact_preset_variant)}: CPU collision`] = {
      ...errGc.errors(),
      tolerance: TOL_DF64,
      gpu_ms_per_step: +(t[1] / steps).toFixed(1),
    };
    console.log('box_stack with GPU collision:', errG.errors(), 'with CPU collision:', errGc.errors(), {
      ...worst,
      contacts,
      ms_per_step_gpu_collision: t[0] / steps,
      ms_per_step_cpu_collision: t[1] / steps,
    });
    expect(mismatches).toBe(0);
    for (const v of Object.values(worst)) expect(v).toBeLessThanOrEqual(TOL_DF64);
    expect(errG.worst()).toBeLessThanOrEqual(TOL_DF64);
  });
}
