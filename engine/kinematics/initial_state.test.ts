/** makeState gives a state a script can step at once: body arrays from forward kinematics */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SapCollisionPipeline } from '../collision/pipeline';
import { loadSceneText } from '../io/scene';
import { SolverSAP } from '../pipeline/step';
import { allocState, makeControl } from '../state';
import { makeState } from './initial_state';

const boxStack = () =>
  loadSceneText(readFileSync(path.resolve(__dirname, '../../scenes/box_stack.yaml'), 'utf8')).model;

describe('makeState', () => {
  it('fills body_q and body_qd as the solver’s forward kinematics does', () => {
    const m = boxStack();
    const s = makeState(m);
    const ref = allocState(m);
    new SolverSAP(m, {}).updateBodyState(ref);
    expect(Array.from(s.body_q)).toEqual(Array.from(ref.body_q));
    expect(Array.from(s.body_qd)).toEqual(Array.from(ref.body_qd));
    // every quaternion is a unit one (allocState's are zero)
    for (let b = 0; b < m.body_count; b++)
      expect(Math.hypot(...s.body_q.subarray(b * 7 + 3, b * 7 + 7))).toBeCloseTo(1, 12);
  });

  it('a script that steps a fresh state without an extra FK call sees the stack at rest', () => {
    const m = boxStack();
    const state = makeState(m);
    const next = allocState(m);
    const collision = new SapCollisionPipeline(m, { rigid_contact_max: 256 });
    const contacts = collision.contacts();
    collision.collide(state, contacts);
    // ten boxes on each other and the floor: four corners each, not every shape at the origin
    expect(contacts.count[0]).toBe(40);
    new SolverSAP(m, {}).step(state, next, makeControl(m), contacts, 0.005);
    let vmax = 0;
    for (const v of next.body_qd) vmax = Math.max(vmax, Math.abs(v));
    expect(vmax).toBeLessThan(0.1);
  });
});
