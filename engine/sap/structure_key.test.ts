/**
 * A solver that keeps the layout and kernel bindings of a problem whose structure repeats (the
 * common case step to step) gives bit for bit what a fresh solver gives, also when the values,
 * the nonzero columns of a Jacobian, the structure itself or the validity of the input change
 * between solves.
 */
import { describe, expect, it } from 'vitest';
import { PackedSapProblem } from './packed_problem';
import type { SapProblem } from './problem';
import { SapSolver } from './solver';
import { StructureKey } from './structure_key';
import type { LinalgKernels } from './linalg/wasm/kernels';
import { cliquePile, holonomicMix, limitsAndDrives, seededRandom, uniform } from './testing';

/** `p` with its values moved (A scaled, v* and the contact Jacobians perturbed), structure kept */
function perturbed(p: SapProblem, seed: number): SapProblem {
  const rng = seededRandom(seed);
  return {
    dt: p.dt,
    cliques: p.cliques.map((c) => {
      const s = uniform(rng, 0.8, 1.25);
      return { nv: c.nv, A: c.A.map((x) => x * s) };
    }),
    v_star: p.v_star.map((x) => x + uniform(rng, -0.3, 0.3)),
    constraints: p.constraints.map((c) =>
      c.kind === 'contact'
        ? {
            ...c,
            J: c.J.map((b) => b.map((x) => (x === 0 ? 0 : x * uniform(rng, 0.9, 1.1)))),
            phi0: c.phi0 * 1.5,
          }
        : c.kind === 'pd'
          ? { ...c, qd: c.qd + uniform(rng, -0.1, 0.1) }
          : c,
    ),
  };
}

/** `p` with `edit` applied to a copy of its first contact's first Jacobian block (3×nv) */
function editFirstContact(p: SapProblem, edit: (J: Float64Array, nv: number) => void): SapProblem {
  let done = false;
  return {
    ...p,
    constraints: p.constraints.map((c) => {
      if (done || c.kind !== 'contact') return c;
      done = true;
      const J = c.J.map((b) => Float64Array.from(b));
      edit(J[0], J[0].length / 3);
      return { ...c, J };
    }),
  };
}

/** `p` with the first nonzero column of its first contact Jacobian zeroed (the columns move) */
function droppedColumn(p: SapProblem): SapProblem {
  return editFirstContact(p, (J, nv) => {
    for (let m = 0; m < nv; m++) {
      if (J[m] !== 0 || J[nv + m] !== 0 || J[2 * nv + m] !== 0) {
        J[m] = J[nv + m] = J[2 * nv + m] = 0;
        return;
      }
    }
  });
}

/** `p` with a NaN in its first contact Jacobian (rejected as invalid input) */
function poisoned(p: SapProblem): SapProblem {
  return editFirstContact(p, (J) => {
    J[0] = NaN;
  });
}

function fresh(kernels: LinalgKernels, preset: string): SapSolver {
  const s = new SapSolver({ contact_preset_variant: preset } as never);
  s.kernels = kernels;
  return s;
}

describe('SapSolver: reuse of a repeating structure', () => {
  const base = limitsAndDrives();
  const other = holonomicMix();
  const pile = cliquePile(3, 16);
  const sequence: [string, SapProblem][] = [
    ['limitsAndDrives, a Jacobian column left out', droppedColumn(base)],
    ['the column in (same structure)', base],
    ['same structure, new values', perturbed(base, 1)],
    ['same structure, new values again', perturbed(base, 2)],
    ['a Jacobian column drops out', droppedColumn(perturbed(base, 3))],
    ['the column back', perturbed(base, 4)],
    ['NaN in a Jacobian', poisoned(base)],
    ['valid again', perturbed(base, 5)],
    ['another structure', other],
    ['the first structure', perturbed(base, 6)],
    ['a pile (block-sparse)', pile],
    ['the pile, new values', perturbed(pile, 7)],
    ['the first structure again', perturbed(base, 8)],
  ];

  for (const kernels of ['wasm', 'js'] as const) {
    for (const preset of ['approx32', 'drake']) {
      it(`${kernels}, ${preset}: one solver through the sequence = a fresh solver per problem`, () => {
        const kept = fresh(kernels, preset);
        for (const [name, p] of sequence) {
          const a = kept.solve(p);
          const b = fresh(kernels, preset).solve(p);
          expect(a.status, name).toBe(b.status);
          expect(a.iterations, name).toBe(b.iterations);
          expect(Array.from(a.v), name).toEqual(Array.from(b.v));
          expect(Array.from(a.gamma), name).toEqual(Array.from(b.gamma));
        }
      });
    }
  }

  it('the sequence exercises what it claims: new values converge elsewhere, NaN is rejected', () => {
    const s = fresh('wasm', 'approx32');
    const v0 = s.solve(base).v;
    const v1 = s.solve(perturbed(base, 1)).v;
    expect(Array.from(v1)).not.toEqual(Array.from(v0));
    expect(s.solve(poisoned(base)).status).toBe('invalid_input');
    expect(s.solve(perturbed(base, 5)).status).toBe('converged');
  });
});

describe('StructureKey', () => {
  function packed(p: SapProblem): PackedSapProblem {
    const pk = new PackedSapProblem();
    pk.reset(p.dt);
    for (const c of p.cliques) pk.addClique(c.nv, c.A);
    pk.v_star = p.v_star;
    for (const c of p.constraints) pk.addSpec(c);
    return pk;
  }

  it('matches a problem of the recorded structure whatever its values, and nothing else', () => {
    const key = new StructureKey();
    const a = packed(limitsAndDrives());
    expect(key.matches(a)).toBe(false);
    key.record(a);
    expect(key.matches(a)).toBe(true);
    expect(key.matches(packed(perturbed(limitsAndDrives(), 3)))).toBe(true);
    expect(key.matches(packed(holonomicMix()))).toBe(false);
    // one constraint fewer; a limit with one side more
    const fewer = limitsAndDrives();
    expect(key.matches(packed({ ...fewer, constraints: fewer.constraints.slice(1) }))).toBe(false);
    const wider = limitsAndDrives();
    wider.constraints[0] = { ...wider.constraints[0], upper: 1 } as never;
    expect(key.matches(packed(wider))).toBe(false);
    key.clear();
    expect(key.matches(a)).toBe(false);
  });
});
