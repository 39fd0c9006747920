/**
 * Stage 5 of the step, contact results: the solved contact impulses back into the contact buffer
 * as forces, application points and slip states (what the studio draws and the CLI reports).
 */
import { ContactSlip, type SapContacts } from '../collision/contacts';
import { ContactRegion } from '../sap/constraints/contact';
import type { SapSolver } from '../sap/solver';
import type { PackedContactRecords } from './contact_jacobian';

/**
 * Writes the world's contacts `rec` (packed first, constraints 0..rec.count) from the solve in
 * `sap`: force on body 1 = R_WC γ / dt [N], the point [m] and the slip state. `solved` false (a
 * solve rejected before its first iteration) writes zero forces and OPEN.
 */
export function contactResultsStage(
  sap: SapSolver,
  rec: PackedContactRecords,
  contacts: SapContacts,
  dt: number,
  solved: boolean,
): void {
  const n = rec.count;
  if (!solved) {
    for (let c = 0; c < n; c++) {
      const sl = rec.slot[c];
      contacts.force.fill(0, sl * 3, sl * 3 + 3);
      contacts.slip_state[sl] = ContactSlip.OPEN;
    }
    return;
  }
  const gam = sap.impulses;
  const f = rec.frame;
  for (let c = 0; c < n; c++) {
    const go = sap.rowOffset(c);
    const g0 = gam[go],
      g1 = gam[go + 1],
      g2 = gam[go + 2];
    const fo = 9 * c,
      s = rec.slot[c] * 3;
    for (let k = 0; k < 3; k++) {
      contacts.force[s + k] = (f[fo + k] * g0 + f[fo + 3 + k] * g1 + f[fo + 6 + k] * g2) / dt;
      contacts.position[s + k] = rec.point[3 * c + k];
    }
    const region = sap.contactRegionOf(c);
    contacts.slip_state[rec.slot[c]] =
      region === ContactRegion.Stick
        ? ContactSlip.STICK
        : region === ContactRegion.Slip
          ? ContactSlip.SLIP
          : ContactSlip.OPEN;
  }
}
