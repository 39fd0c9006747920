/** The constraint-kind table: one row per packed code, record offsets inside the record. */
import { describe, expect, it } from 'vitest';
import { PHYS_STRIDE, SapKind } from '../packed_problem';
import { HOLONOMIC_MAX_ROWS } from './holonomic';
import { CONSTRAINT_KINDS } from './kinds';

describe('CONSTRAINT_KINDS', () => {
  it('has one row per SapKind code, at its code', () => {
    const codes = Object.values(SapKind);
    expect(CONSTRAINT_KINDS.length).toBe(codes.length);
    for (const c of codes) expect(CONSTRAINT_KINDS[c].code).toBe(c);
    expect(new Set(CONSTRAINT_KINDS.map((k) => k.name)).size).toBe(codes.length);
  });

  it("each kind's record offsets are distinct and inside one record", () => {
    for (const k of CONSTRAINT_KINDS) {
      const offsets = Object.values(k.phys);
      expect(new Set(offsets).size, k.name).toBe(offsets.length);
      for (const o of offsets) {
        expect(Number.isInteger(o) && o >= 0, k.name).toBe(true);
        expect(o, k.name).toBeLessThan(PHYS_STRIDE);
      }
    }
    // a holonomic record holds g0 of up to HOLONOMIC_MAX_ROWS rows after its named inputs
    const h = CONSTRAINT_KINDS[SapKind.Holonomic].phys;
    expect(h.g0 + HOLONOMIC_MAX_ROWS).toBeLessThanOrEqual(PHYS_STRIDE);
    for (const [name, o] of Object.entries(h)) if (name !== 'g0') expect(o).toBeLessThan(h.g0);
  });
});
