import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCommand, PROTOCOL_VERSION, type WorkerEvent } from './protocol';
import { SimHost } from './sim_host';

const v = PROTOCOL_VERSION;
const scene = (name: string) => readFileSync(new URL(`../../scenes/${name}.yaml`, import.meta.url), 'utf8');

async function host(name: string) {
  const events: WorkerEvent[] = [];
  const h = new SimHost((e) => events.push(e));
  h.handle({ v, type: 'load_scene', source: { kind: 'text', text: scene(name), file_name: `${name}.yaml` } });
  await h.idle();
  const of = <T extends WorkerEvent['type']>(t: T) =>
    events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === t);
  return { h, events, of };
}

describe('inspect_step', () => {
  it('re-solves the last step of box_stack traced, leaving the live simulation as it was', async () => {
    const { h, of } = await host('box_stack');
    h.handle({ v, type: 'step', n: 30 });
    await h.idle();
    const sim = h.sim!;
    const q = sim.state.joint_q.slice();
    const qd = sim.state.joint_qd.slice();
    const live = sim.last_report!;
    const frames = of('frame').length;
    h.handle({ v, type: 'inspect_step', step: 'last', id: 7 });
    await h.idle();
    const ins = of('inspection').at(-1)!.inspection;
    expect(ins.id).toBe(7);
    expect(ins.which).toBe('last');
    expect(ins.step).toBe(29);
    expect(ins.preset).toBe('drake');
    expect(ins.line_search).toBe('exact_root');
    expect(ins.status).toBe('converged');
    // the live step again, iteration for iteration: the same contacts, the same warm start (primed
    // with the step before from the history) and the same costs, bit for bit
    expect(ins.warm_start).toBe('accelerated');
    expect(ins.contacts).toBe(live.contact_count);
    expect(ins.contacts).toBeGreaterThan(0);
    expect(ins.iterates.map((r) => r.cost)).toEqual(live.worlds[0].cost);
    const last = ins.iterates.at(-1)!;
    expect(last.stick + last.slip + last.open).toBe(ins.contacts);
    const first = ins.iterates[0];
    expect(first.alpha).toBeGreaterThan(0);
    expect(first.curve_alpha.length).toBe(41);
    expect(first.trials.length).toBeGreaterThan(0);
    // untouched: state, step count, the live options, no frame sent
    expect(Array.from(sim.state.joint_q)).toEqual(Array.from(q));
    expect(Array.from(sim.state.joint_qd)).toEqual(Array.from(qd));
    expect(h.stepCount).toBe(30);
    expect(sim.last_report).toBe(live);
    expect(of('frame').length).toBe(frames);
  });

  it('re-solves the next step under another preset and line search without changing the live options', async () => {
    const { h, of } = await host('box_stack');
    h.handle({ v, type: 'step', n: 30 });
    await h.idle();
    const optionEvents = of('options').length;
    h.handle({ v, type: 'inspect_step', step: 'next' });
    h.handle({
      v,
      type: 'inspect_step',
      step: 'next',
      options: { contact_preset_variant: 'approx32', line_search_variant: 'monotone_decay' },
    });
    await h.idle();
    const [a, b] = of('inspection').map((e) => e.inspection);
    expect(a.step).toBe(30);
    expect(b.step).toBe(30);
    expect(b.preset).toBe('approx32');
    expect(b.line_search).toBe('monotone_decay');
    expect(b.options.contact_preset_variant).toBe('approx32');
    // the knob changes the solve: fp32 arithmetic and another line search give other iterates
    expect(b.iterates.map((r) => r.cost)).not.toEqual(a.iterates.map((r) => r.cost));
    // monotone_decay accepts α ≤ 1 and evaluates no slopes; exact_root evaluates them
    for (const r of b.iterates.slice(0, -1)) {
      expect(r.alpha!).toBeLessThanOrEqual(1);
      expect(r.trials.every((t) => t.dphi === null)).toBe(true);
    }
    expect(a.iterates[0].trials[0].dphi).not.toBeNull();
    // the same request twice gives the same trace (no state kept between inspections)
    h.handle({ v, type: 'inspect_step', step: 'next' });
    await h.idle();
    const again = of('inspection').at(-1)!.inspection;
    expect(again.iterates.map((r) => r.cost)).toEqual(a.iterates.map((r) => r.cost));
    // live options untouched
    expect(h.sim!.solver.options.contact_preset_variant).toBe('drake');
    expect(of('options').length).toBe(optionEvents);
  });

  it('repeats the live solve: the first step from v_n, later ones with the extrapolated start, the next step before it is taken', async () => {
    const { h, of } = await host('box_stack');
    h.handle({ v, type: 'inspect_step', step: 'next' });
    h.handle({ v, type: 'step', n: 1 });
    h.handle({ v, type: 'inspect_step', step: 'last' });
    await h.idle();
    const [next0, last0] = of('inspection').map((e) => e.inspection);
    const live0 = h.sim!.last_report!.worlds[0].cost;
    expect(next0.warm_start).toBe('previous'); // no step before the first
    expect(last0.warm_start).toBe('previous');
    expect(next0.iterates.map((r) => r.cost)).toEqual(live0);
    expect(last0.iterates.map((r) => r.cost)).toEqual(live0);
    for (let s = 1; s < 6; s++) {
      h.handle({ v, type: 'inspect_step', step: 'next' });
      h.handle({ v, type: 'step', n: 1 });
      await h.idle();
      const ins = of('inspection').at(-1)!.inspection;
      expect(ins.step).toBe(s);
      expect(ins.warm_start).toBe('accelerated');
      expect(ins.iterates.map((r) => r.cost)).toEqual(h.sim!.last_report!.worlds[0].cost);
      expect(ins.iterations).toBe(h.sim!.last_report!.worlds[0].iterations);
    }
  });

  it('answers a bad option with the key, and a missing state with a reason', async () => {
    const { h, of } = await host('box_stack');
    h.handle({ v, type: 'inspect_step', step: 'last' });
    await h.idle();
    let err = of('error').at(-1)!.error;
    expect(err.code).toBe('inspect');
    expect(err.reason).toMatch(/no step has been taken/);
    h.handle({ v, type: 'step', n: 2 });
    h.handle({ v, type: 'inspect_step', options: { rho: 2 } });
    await h.idle();
    err = of('error').at(-1)!.error;
    expect(err.code).toBe('options');
    expect(err.path).toBe('rho');
    expect(of('inspection')).toHaveLength(0);
  });

  it('is validated by the protocol schema', () => {
    expect(parseCommand({ v, type: 'inspect_step', step: 'next', options: { rho: 0.5 }, id: 1 }).ok).toBe(
      true,
    );
    expect(parseCommand({ v, type: 'inspect_step', step: 'previous' }).ok).toBe(false);
    expect(parseCommand({ v, type: 'inspect_step', options: { rho: [1] } }).ok).toBe(false);
  });
});
