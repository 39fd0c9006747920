/**
 * The MuJoCo peer's switches: elliptic friction cones must change the constraint rows MuJoCo
 * solves (a pyramidal contact of condim 3 has four edge rows, an elliptic one three).
 */
import { describe, expect, it } from 'vitest';
import { loadMujoco, mujocoFromXml, useEllipticCones } from './mujoco';

const BOX_ON_PLANE = `<mujoco>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <body pos="0 0 0.099"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
  </worldbody>
</mujoco>`;

describe('MuJoCo peer', () => {
  it('elliptic cones: the same contacts, three rows each instead of the pyramid four', async () => {
    const mj = await loadMujoco();
    if (typeof mj === 'string') throw new Error(mj);
    const rows = (elliptic: boolean): { ncon: number; nefc: number } => {
      const { m, d } = mujocoFromXml(mj, BOX_ON_PLANE);
      try {
        if (elliptic) expect(useEllipticCones(mj, m)).toBeNull();
        mj.mj_forward(m, d);
        return { ncon: d.ncon, nefc: d.nefc };
      } finally {
        d.delete();
        m.delete();
      }
    };
    const pyramid = rows(false);
    const elliptic = rows(true);
    expect(pyramid.ncon).toBe(4);
    expect(elliptic.ncon).toBe(4);
    expect(pyramid.nefc).toBe(16);
    expect(elliptic.nefc).toBe(12);
  });
});
