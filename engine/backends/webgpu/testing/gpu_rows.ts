/**
 * Maps the GPU's fixed-position constraint storage (kernels/sap_constraints.wgsl) to the reference
 * solver's packed order (contacts by slot, then per DOF: limit rows, PD row, joint-friction row,
 * then the world's equalities), for parity tests.
 */
import type { SapModel } from '../../../model';
import { DOF_ROWS } from '../../../model/layout';
import type { GpuViews } from '../../../model/layout_views';

/** rows per EqualityType (coupler, ball, weld) */
export const EQ_ROWS = [1, 3, 6];

export interface GpuRowMap {
  /** indices into the row fields (sap_vc, sap_gamma, …), reference order */
  rows: number[];
  /** indices into sap_G of each row's diagonal entry */
  gdiag: number[];
  /** contact slots of the live contacts, in order */
  slots: number[];
  /** DOFs with a limit, PD or joint-friction constraint, in order */
  dofs: number[];
  /** live equality constraints of the world, in order */
  eqs: number[];
}

export function gpuRowMap(m: SapModel, g: GpuViews, w: number, capacity: number): GpuRowMap {
  const d0 = m.world_dof_start[w];
  const rs = 3 * capacity * w + DOF_ROWS * d0;
  const gs = 9 * capacity * w + DOF_ROWS * d0;
  const out: GpuRowMap = { rows: [], gdiag: [], slots: [], dofs: [], eqs: [] };
  for (let i = 0; i < g.contact_count[w]; i++) {
    const s = w * capacity + i;
    if (g.con_active[s] !== 1) continue;
    out.slots.push(s);
    for (let k = 0; k < 3; k++) {
      out.rows.push(rs + 3 * i + k);
      out.gdiag.push(gs + 9 * i + 4 * k);
    }
  }
  for (let d = d0; d < m.world_dof_start[w + 1]; d++) {
    const lr = g.lim_rows[d];
    const pd = g.pd_active[d];
    const fr = g.fr_active[d];
    if (!lr && !pd && !fr) continue;
    out.dofs.push(d);
    const r = rs + 3 * capacity + DOF_ROWS * (d - d0);
    const gi = gs + 9 * capacity + DOF_ROWS * (d - d0);
    for (let side = 0; side < 2; side++) {
      if (!(lr & (1 << side))) continue;
      out.rows.push(r + side);
      out.gdiag.push(gi + side);
    }
    if (pd) {
      out.rows.push(r + 2);
      out.gdiag.push(gi + 2);
    }
    if (fr) {
      out.rows.push(r + 3);
      out.gdiag.push(gi + 3);
    }
  }
  const slots = m.num_worlds * capacity;
  const n = m.joint_dof_count;
  for (let e = g.world_eq_start[w]; e < g.world_eq_start[w + 1]; e++) {
    if (g.eq_active[e] !== 1) continue;
    out.eqs.push(e);
    for (let k = 0; k < EQ_ROWS[g.eq_type[e]]; k++) {
      out.rows.push(3 * slots + DOF_ROWS * n + 6 * e + k);
      out.gdiag.push(9 * slots + DOF_ROWS * n + 6 * e + k);
    }
  }
  return out;
}

/** df64 field entries at `idx` as doubles */
export function pick(a: Float32Array, idx: readonly number[]): Float64Array {
  const out = new Float64Array(idx.length);
  idx.forEach((i, k) => (out[k] = a[2 * i] + a[2 * i + 1]));
  return out;
}

/** df64 field entries [o, o + n) as doubles */
export function slice(a: Float32Array, o: number, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) out[k] = a[2 * (o + k)] + a[2 * (o + k) + 1];
  return out;
}
