/**
 * Contact frame R_WC with z = n (Drake's deterministic MakeFromOneVector): i = index of the smallest
 * |n| component, j = (i+1)%3, k = (j+1)%3, r = 1/√(1−nᵢ²); x: xᵢ = 0, xⱼ = −r·nₖ, xₖ = r·nⱼ;
 * y: yᵢ = √(1−nᵢ²), yⱼ = −r·nᵢnⱼ, yₖ = −r·nᵢnₖ. Writes rows (t1, t2, n) of R_WCᵀ into out (9).
 */
const normal = new Float64Array(3);

export function contactFrame(nx: number, ny: number, nz: number, out: Float64Array): void {
  const n = normal;
  n[0] = nx;
  n[1] = ny;
  n[2] = nz;
  const ax = Math.abs(nx),
    ay = Math.abs(ny),
    az = Math.abs(nz);
  const i = ax <= ay && ax <= az ? 0 : ay <= az ? 1 : 2;
  const j = (i + 1) % 3,
    k = (j + 1) % 3;
  const s = Math.sqrt(1 - n[i] * n[i]);
  const r = 1 / s;
  out[i] = 0;
  out[j] = -r * n[k];
  out[k] = r * n[j];
  out[3 + i] = s;
  out[3 + j] = -r * n[i] * n[j];
  out[3 + k] = -r * n[i] * n[k];
  out[6] = nx;
  out[7] = ny;
  out[8] = nz;
}
