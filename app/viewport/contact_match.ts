/**
 * Following one contact from frame to frame: contacts have no identity across steps, so the inspected
 * contact is the one of the same world and shape pair whose point on the first shape (in that
 * shape's body frame) is nearest to the inspected one's.
 */
import { CF, CONTACT_STRIDE } from '../../engine/worker/protocol';

/** farthest the followed point may move between two looks [m] before the contact counts as gone */
export const FOLLOW_RADIUS = 0.05;

/**
 * the index of the contact in `data` (count `n`) that continues `was` (a contact's field values, as
 * contactValues gives them), or −1 when the pair no longer touches near that point
 */
export function matchContact(data: Float64Array, n: number, was: Record<string, number>): number {
  let best = -1;
  let bestD2 = FOLLOW_RADIUS * FOLLOW_RADIUS;
  for (let k = 0; k < n; k++) {
    const o = k * CONTACT_STRIDE;
    if (data[o + CF.world] !== was.world) continue;
    const same = data[o + CF.shape0] === was.shape0 && data[o + CF.shape1] === was.shape1;
    const swapped = data[o + CF.shape0] === was.shape1 && data[o + CF.shape1] === was.shape0;
    if (!same && !swapped) continue;
    const px = swapped ? data[o + CF.p1x] : data[o + CF.p0x];
    const py = swapped ? data[o + CF.p1y] : data[o + CF.p0y];
    const pz = swapped ? data[o + CF.p1z] : data[o + CF.p0z];
    const d2 = (px - was.p0x) ** 2 + (py - was.p0y) ** 2 + (pz - was.p0z) ** 2;
    if (d2 <= bestD2) {
      bestD2 = d2;
      best = k;
    }
  }
  return best;
}
