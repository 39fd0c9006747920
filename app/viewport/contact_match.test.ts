import { describe, expect, it } from 'vitest';
import { CF, CONTACT_STRIDE } from '../../engine/worker/protocol';
import { matchContact } from './contact_match';

function frame(contacts: Partial<Record<keyof typeof CF, number>>[]): Float64Array {
  const d = new Float64Array(contacts.length * CONTACT_STRIDE);
  contacts.forEach((c, k) => {
    for (const [f, v] of Object.entries(c)) d[k * CONTACT_STRIDE + CF[f as keyof typeof CF]] = v;
  });
  return d;
}

describe('following an inspected contact across frames', () => {
  const was = { world: 0, shape0: 2, shape1: 5, p0x: 0.1, p0y: 0, p0z: 0 } as Record<string, number>;
  it('finds the same pair near the same body-frame point, among others', () => {
    const d = frame([
      { world: 0, shape0: 2, shape1: 5, p0x: -0.1 },
      { world: 1, shape0: 2, shape1: 5, p0x: 0.1 },
      { world: 0, shape0: 3, shape1: 5, p0x: 0.1 },
      { world: 0, shape0: 2, shape1: 5, p0x: 0.101 },
    ]);
    expect(matchContact(d, 4, was)).toBe(3);
  });
  it('follows a pair written the other way round', () => {
    const d = frame([{ world: 0, shape0: 5, shape1: 2, p1x: 0.1 }]);
    expect(matchContact(d, 1, was)).toBe(0);
  });
  it('says the contact is gone when the pair no longer touches near that point', () => {
    expect(matchContact(frame([{ world: 0, shape0: 2, shape1: 5, p0x: 0.3 }]), 1, was)).toBe(-1);
    expect(matchContact(frame([]), 0, was)).toBe(-1);
  });
});
