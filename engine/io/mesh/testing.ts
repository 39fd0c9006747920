/** helpers of the mesh tests (not part of the public API): moments that compare two readers' output */

/**
 * per material name: area, area-weighted centroid and signed volume of its triangles; for a
 * textured one its image and the area-weighted means of u, v and of u·x, u·y, u·z, v·x, v·y, v·z
 * (which move with any misassigned texture coordinate)
 */
export type Moments = Map<
  string,
  { area: number; c: number[]; vol: number; color?: string; image?: string; uv?: number[] }
>;
export const accumulate = (
  out: Moments,
  name: string,
  p: ArrayLike<number>,
  tris: ArrayLike<number>,
  look: { color?: string; image?: string; uv?: ArrayLike<number> },
) => {
  const m = out.get(name) ?? {
    area: 0,
    c: [0, 0, 0],
    vol: 0,
    color: look.color,
    image: look.image,
    uv: look.uv ? [0, 0, 0, 0, 0, 0, 0, 0] : undefined,
  };
  for (let t = 0; t < tris.length; t += 3) {
    const [a, b, c] = [tris[t] * 3, tris[t + 1] * 3, tris[t + 2] * 3];
    const u = [p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]];
    const v = [p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2]];
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const area = Math.hypot(n[0], n[1], n[2]) / 2;
    m.area += area;
    for (let k = 0; k < 3; k++) m.c[k] += (area * (p[a + k] + p[b + k] + p[c + k])) / 3;
    m.vol += (p[a] * n[0] + p[a + 1] * n[1] + p[a + 2] * n[2]) / 6;
    if (look.uv && m.uv) {
      for (const i of [tris[t], tris[t + 1], tris[t + 2]]) {
        const tc = [look.uv[i * 2], look.uv[i * 2 + 1]];
        for (let q = 0; q < 2; q++) {
          m.uv[q] += (area * tc[q]) / 3;
          for (let k = 0; k < 3; k++) m.uv[2 + q * 3 + k] += (area * tc[q] * p[i * 3 + k]) / 3;
        }
      }
    }
  }
  out.set(name, m);
};
