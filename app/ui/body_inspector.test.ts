import { describe, expect, it } from 'vitest';
import { Simulation } from '../../engine/pipeline';
import { pendulum, spinningBox } from '../../engine/pipeline/test_scenes';
import type { SapModel } from '../../engine/model';
import type { JointFrame } from '../../engine/worker/protocol';
import { buildSceneInfo } from '../../engine/worker/scene_info';
import { bodyInspectorRows, frictionState } from './body_inspector';

const META = {
  name: 't',
  file_name: 't',
  description: '',
  dt: 0.001,
  contact_capacity: 8,
  warnings: [],
  notes: [],
  keyframes: [],
  keyframe: null,
};

/** the inspector's rows of body 0 after `steps` steps, as a map */
function inspect(m: SapModel, steps: number, prepare?: (sim: Simulation) => void) {
  const sim = new Simulation(m, { dt: 0.001, solver: { contact_preset_variant: 'drake' } });
  prepare?.(sim);
  sim.solver.track_joint_efforts = true;
  for (let i = 0; i < steps; i++) sim.step();
  const frame: JointFrame = {
    q: Float64Array.from(sim.state.joint_q),
    qd: Float64Array.from(sim.state.joint_qd),
    effort: Float64Array.from(sim.solver.joint_effort),
  };
  const scene = buildSceneInfo(m, sim.state.body_q, META);
  return new Map(bodyInspectorRows(scene, 0, frame));
}

describe('body inspector rows', () => {
  const horizontal = (sim: Simulation) => {
    sim.state.joint_q[0] = Math.PI / 2;
  };

  it('names the joint and shows a hinge held or sliding on its friction, with units', () => {
    const held = inspect(pendulum(100), 50, horizontal);
    expect(held.get('body')).toBe('link (#0, world 0)');
    expect(held.get('joint')).toBe('hinge (revolute)');
    expect(held.get('q, q̇')).toMatch(/^1\.570\d rad, -?[0-9.e-]+ rad\/s$/);
    expect(held.get('friction effort')).toMatch(/ N·m of ±100\.0000 \(stick\)$/);
    expect(held.get('limit effort')).toBe('0.0000 N·m');
    expect(held.get('drive effort')).toBe('0.0000 N·m');
    const sliding = inspect(pendulum(10), 50, horizontal);
    expect(sliding.get('friction effort')).toMatch(/^-?10\.0000 N·m of ±10\.0000 \(slip\)$/);
  });

  it('shows a free body’s COM velocity and ω, and no constraint efforts', () => {
    const box = inspect(spinningBox(), 5, (sim) => {
      sim.state.joint_qd.set([0.5, 0, 0, 0, 0, 2]);
    });
    expect(box.get('joint')).toMatch(/\(free\)$/);
    expect(box.get('COM velocity (world)')).toBe('[0.5000, 0.0000, 0.0000] m/s');
    expect(box.get('ω (world)')).toMatch(/, 2\.0000\] rad\/s$/);
    expect(box.has('limit effort')).toBe(false);
  });

  it('calls an effort at its bound sliding', () => {
    expect(frictionState(0.3, 0.3)).toBe('slip');
    expect(frictionState(-0.3, 0.3)).toBe('slip');
    expect(frictionState(0.2999, 0.3)).toBe('stick');
  });
});
