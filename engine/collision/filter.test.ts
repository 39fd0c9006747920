import { describe, expect, it } from 'vitest';
import { ModelBuilder } from '../model';
import { groupsCollide } from './filter';
import { SapCollisionPipeline } from './pipeline';
import { posedState } from './test_fixtures';

describe('groupsCollide', () => {
  it('follows 0 none, +n same group (and negatives), −n all but itself', () => {
    expect(groupsCollide(0, 0)).toBe(false);
    expect(groupsCollide(0, 3)).toBe(false);
    expect(groupsCollide(-2, 0)).toBe(false);
    expect(groupsCollide(1, 1)).toBe(true);
    expect(groupsCollide(1, 2)).toBe(false);
    expect(groupsCollide(-1, -1)).toBe(false);
    expect(groupsCollide(-1, -2)).toBe(true);
    expect(groupsCollide(-1, 1)).toBe(true);
    expect(groupsCollide(2, -1)).toBe(true);
  });
  it('is symmetric', () => {
    for (let a = -4; a <= 4; a++)
      for (let b = -4; b <= 4; b++) expect(groupsCollide(a, b)).toBe(groupsCollide(b, a));
  });
});

describe('buffer reuse', () => {
  it('a later collide clears the previous contacts', () => {
    const b = new ModelBuilder();
    b.addGround();
    const body = b.addBody({ X_wb: [0, 0, 0.1, 0, 0, 0, 1] });
    b.addShape({ body, type: 'sphere', size: [0.1] });
    const model = b.finalize();
    const p = new SapCollisionPipeline(model, { rigid_contact_max: 4 });
    const c = p.contacts();
    const state = posedState(model);
    p.collide(state, c);
    expect(c.count[0]).toBe(1);
    expect(p.last_broad_phase_pair_count).toBe(1);
    state.body_q[2] = 3;
    p.collide(state, c);
    expect(c.count[0]).toBe(0);
    expect(p.last_broad_phase_pair_count).toBe(1); // an infinite plane's AABB overlaps everything
  });
});
