/**
 * Parity fixtures: a scene advanced a few steps on the CPU reference, so that stages see non-trivial
 * velocities and contacts, and the CPU twins of every GPU stage evaluated on that input.
 */
import { SapCollisionPipeline } from '../../../collision/pipeline';
import type { SapContacts } from '../../../collision/contacts';
import type { SapModel } from '../../../model';
import { Simulation } from '../../../pipeline/simulation';
import { cloneState, type SapControl, type SapState } from '../../../state';
import { loadRepoScene, type TestScene } from './parity';

export interface StageFixture {
  name: string;
  model: SapModel;
  dt: number;
  solver: Record<string, unknown>;
  capacity: number;
  state: SapState;
  control: SapControl;
  contacts: SapContacts;
}

/**
 * scene `name` (a repository scene, or a built {@link TestScene}) after `warm` CPU steps (with the scene's own solver options), optionally adjusted
 * (e.g. moved next to a joint limit), with fresh contacts
 */
export function stageFixture(
  source: string | TestScene,
  warm: number,
  adjust?: (scene: TestScene, state: SapState) => void,
  num_worlds?: number,
): StageFixture {
  const scene = typeof source === 'string' ? loadRepoScene(source, num_worlds) : source;
  const name = typeof source === 'string' ? source : source.name;
  const sim = new Simulation(scene.model, {
    dt: scene.dt,
    solver: scene.solver,
    max_rigid_contact: scene.max_rigid_contact,
  });
  // the lead-in starts Newton from v_n, so that the fixture states do not move with the warm-start
  // choice (equalities/approx32 lands near the fp32 stage tolerance from the accelerated start's
  // state: sap_solve.dv 1.04e-3 against 1e-3)
  sim.solver.warm_start = 'previous';
  for (let i = 0; i < warm; i++) sim.step();
  if (adjust) {
    adjust(scene, sim.state);
    sim.solver.updateBodyState(sim.state);
  }
  const collision = new SapCollisionPipeline(scene.model, { rigid_contact_max: scene.max_rigid_contact });
  const contacts = collision.contacts();
  collision.collide(sim.state, contacts);
  return {
    name,
    model: scene.model,
    dt: scene.dt,
    solver: scene.solver,
    capacity: scene.max_rigid_contact,
    state: cloneState(sim.state),
    control: sim.control,
    contacts,
  };
}
