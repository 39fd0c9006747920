import { describe, expect, it } from 'vitest';
import { seededRandom, uniform } from '../testing';
import { BlockSparseCholesky, type LinalgKernels } from './block_sparse';
import { choleskyFactor, choleskySolve, type LinearSolvePrecision } from './cholesky';

interface CliqueMatrix {
  sizes: number[];
  start: number[];
  n: number;
  edges: number[];
  /** dense symmetric H (natural order, full) */
  H: Float64Array;
}

/**
 * Random SPD matrix with clique structure: H = blockdiag(B_c B_cᵀ + I) + Σ_edges J_eᵀ G_e J_e with
 * each J_e a random 3×(n_a + n_b) row block over the two cliques of the edge.
 */
function randomCliqueMatrix(
  seed: number,
  nb: number,
  density: number,
  fixedSize = 0,
  maxSize = 7,
): CliqueMatrix {
  const rng = seededRandom(seed);
  const sizes: number[] = [];
  const start: number[] = [];
  let n = 0;
  for (let b = 0; b < nb; b++) {
    const s = fixedSize > 0 ? fixedSize : 1 + Math.floor(rng() * maxSize);
    sizes.push(s);
    start.push(n);
    n += s;
  }
  const H = new Float64Array(n * n);
  for (let b = 0; b < nb; b++) {
    const s = sizes[b];
    const o = start[b];
    const B = Array.from({ length: s * s }, () => uniform(rng, -1, 1));
    for (let i = 0; i < s; i++) {
      for (let j = 0; j < s; j++) {
        let acc = i === j ? 1 : 0;
        for (let k = 0; k < s; k++) acc += B[i * s + k] * B[j * s + k];
        H[(o + i) * n + o + j] = acc;
      }
    }
  }
  const edges: number[] = [];
  for (let a = 0; a < nb; a++) {
    for (let b = a + 1; b < nb; b++) {
      if (rng() >= density) continue;
      edges.push(a, b);
      if (rng() < 0.3) edges.push(b, a); // duplicates are allowed
      const idx = [
        ...Array.from({ length: sizes[a] }, (_, k) => start[a] + k),
        ...Array.from({ length: sizes[b] }, (_, k) => start[b] + k),
      ];
      const J = Array.from({ length: 3 * idx.length }, () => uniform(rng, -1, 1));
      const g = [uniform(rng, 0.1, 2), uniform(rng, 0.1, 2), uniform(rng, 0.1, 2)];
      for (let x = 0; x < idx.length; x++) {
        for (let y = 0; y < idx.length; y++) {
          let acc = 0;
          for (let r = 0; r < 3; r++) acc += J[r * idx.length + x] * g[r] * J[r * idx.length + y];
          H[idx[x] * n + idx[y]] += acc;
        }
      }
    }
  }
  return { sizes, start, n, edges, H };
}

/** fills the sparse storage from the dense H (lower triangles; blocks in the pattern) */
function fillSparse(bs: BlockSparseCholesky, m: CliqueMatrix): void {
  bs.clear();
  const { sizes, start, n, H } = m;
  for (let b = 0; b < sizes.length; b++) {
    const d = bs.diagOffset(b);
    const s = sizes[b];
    for (let i = 0; i < s; i++)
      for (let j = 0; j <= i; j++) bs.values[d + i * s + j] = H[(start[b] + i) * n + start[b] + j];
  }
  for (let a = 0; a < sizes.length; a++) {
    for (let b = 0; b < sizes.length; b++) {
      if (a === b || bs.position[a] > bs.position[b]) continue;
      // a eliminated first: column block a, rows b
      const off = bs.blockOffset(a, b);
      if (off < 0) continue;
      for (let i = 0; i < sizes[b]; i++) {
        for (let j = 0; j < sizes[a]; j++)
          bs.values[off + i * sizes[a] + j] = H[(start[b] + i) * n + start[a] + j];
      }
    }
  }
}

/** dense H' = PHPᵀ in the elimination order of bs, and the permutation (H' index → H index) */
function permuted(bs: BlockSparseCholesky, m: CliqueMatrix): { Hp: Float64Array; perm: number[] } {
  const perm: number[] = [];
  for (let p = 0; p < bs.nb; p++) {
    const b = bs.order[p];
    for (let k = 0; k < m.sizes[b]; k++) perm.push(m.start[b] + k);
  }
  const n = m.n;
  const Hp = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) Hp[i * n + j] = m.H[perm[i] * n + perm[j]];
  return { Hp, perm };
}

const CASES: [number, number, number, number?][] = [
  // seed, blocks, edge density, fixed block size (6: free bodies, the unrolled update path)
  [1, 1, 0],
  [2, 2, 1],
  [3, 6, 0.4],
  [4, 12, 0.25],
  [5, 25, 0.1],
  [6, 40, 0.06],
  [7, 20, 0.9],
  [8, 30, 0],
  [9, 30, 0.15, 6],
  [10, 12, 0.6, 6],
];

describe('BlockSparseCholesky', () => {
  // the WebAssembly kernels and their JS twins are each held to the dense JS Cholesky bit for bit
  for (const [prec, kernels] of [
    ['fp64', 'wasm'],
    ['fp32', 'wasm'],
    ['fp64', 'js'],
    ['fp32', 'js'],
  ] as [LinearSolvePrecision, LinalgKernels][]) {
    for (const [seed, nb, density, fixed = 0] of CASES) {
      it(`${prec} (${kernels}): factor and solve equal the dense Cholesky of PHPᵀ bit for bit (seed ${seed}, ${nb} cliques${fixed ? ` of size ${fixed}` : ''}, density ${density})`, () => {
        const m = randomCliqueMatrix(seed, nb, density, fixed);
        const bs = new BlockSparseCholesky(prec, kernels);
        bs.analyze(nb, m.sizes, m.edges, m.edges.length / 2);
        expect(bs.kernels).toBe(kernels);
        expect(bs.n).toBe(m.n);
        fillSparse(bs, m);
        expect(bs.factor()).toEqual({ status: 'ok', pivot: -1 });
        const Lv = bs.factorValues();

        const { Hp, perm } = permuted(bs, m);
        const n = m.n;
        const L = prec === 'fp32' ? Float32Array.from(Hp) : Float64Array.from(Hp);
        expect(choleskyFactor(L, n, prec).status).toBe('ok');
        // every panel entry equals the dense factor entry; everything outside the pattern is 0
        const covered = new Uint8Array(n * n);
        const posStart: number[] = [];
        for (let p = 0, s = 0; p < nb; p++) {
          posStart.push(s);
          s += m.sizes[bs.order[p]];
        }
        let mismatches = 0;
        for (let p = 0; p < nb; p++) {
          const b = bs.order[p];
          const s = m.sizes[b];
          const d = bs.diagOffset(b);
          for (let i = 0; i < s; i++) {
            for (let j = 0; j <= i; j++) {
              const gi = posStart[p] + i,
                gj = posStart[p] + j;
              covered[gi * n + gj] = 1;
              if (Lv[d + i * s + j] !== L[gi * n + gj]) mismatches++;
            }
          }
          for (let q = p + 1; q < nb; q++) {
            const c = bs.order[q];
            const off = bs.blockOffset(b, c);
            if (off < 0) continue;
            for (let i = 0; i < m.sizes[c]; i++) {
              for (let j = 0; j < s; j++) {
                const gi = posStart[q] + i,
                  gj = posStart[p] + j;
                covered[gi * n + gj] = 1;
                if (Lv[off + i * s + j] !== L[gi * n + gj]) mismatches++;
              }
            }
          }
        }
        expect(mismatches).toBe(0);
        for (let i = 0; i < n; i++)
          for (let j = 0; j <= i; j++) if (!covered[i * n + j]) expect(L[i * n + j]).toBe(0);

        // solves
        const rng = seededRandom(seed + 100);
        const b = Float64Array.from({ length: n }, () => uniform(rng, -1, 1));
        const x = new Float64Array(n);
        bs.solve(b, x, m.start);
        const y = prec === 'fp32' ? new Float32Array(n) : new Float64Array(n);
        for (let i = 0; i < n; i++) y[i] = b[perm[i]];
        choleskySolve(L, n, y, prec);
        for (let i = 0; i < n; i++) expect(x[perm[i]]).toBe(y[i]);

        // against the plain dense solve of H (natural order): equal within rounding
        const L0 = Float64Array.from(m.H);
        choleskyFactor(L0, n, 'fp64');
        const x0 = Float64Array.from(b);
        choleskySolve(L0, n, x0, 'fp64');
        let num = 0,
          den = 0;
        for (let i = 0; i < n; i++) {
          num = Math.max(num, Math.abs(x[i] - x0[i]));
          den = Math.max(den, Math.abs(x0[i]));
        }
        expect(num / den).toBeLessThan(prec === 'fp64' ? 1e-10 : 1e-3);
      });
    }
  }

  it('keeps the analysis of an unchanged clique graph and redoes it when the graph changes', () => {
    for (const kernels of ['wasm', 'js'] as const) {
      const a = randomCliqueMatrix(21, 40, 0.08, 6);
      const b = randomCliqueMatrix(21, 40, 0.12, 6); // same blocks, more edges
      const fresh = (m: CliqueMatrix): { order: number[]; storage: number; x: number[] } => {
        const bs = new BlockSparseCholesky('fp64', kernels);
        return solveWith(bs, m);
      };
      const solveWith = (bs: BlockSparseCholesky, m: CliqueMatrix, extra = 0) => {
        bs.analyze(40, m.sizes, m.edges, m.edges.length / 2, extra);
        fillSparse(bs, m);
        expect(bs.factor().status).toBe('ok');
        const x = new Float64Array(m.n);
        bs.solve(
          Float64Array.from({ length: m.n }, (_, i) => Math.cos(i)),
          x,
          m.start,
        );
        return { order: Array.from(bs.order.subarray(0, 40)), storage: bs.storage, x: Array.from(x) };
      };
      const refA = fresh(a);
      const refB = fresh(b);
      expect(refB.storage).not.toBe(refA.storage);
      const bs = new BlockSparseCholesky('fp64', kernels);
      // A, A again (kept; a larger caller region on the second), B (redone), A (redone)
      expect(solveWith(bs, a)).toEqual(refA);
      expect(solveWith(bs, a, 1 << 20)).toEqual(refA);
      expect(solveWith(bs, b)).toEqual(refB);
      expect(solveWith(bs, a)).toEqual(refA);
    }
  });

  it('keeps H in its held array across factorizations (loadHeld gives the same factor again)', () => {
    for (const kernels of ['wasm', 'js'] as const) {
      const m = randomCliqueMatrix(5, 30, 0.1, 6);
      const bs = new BlockSparseCholesky('fp64', kernels);
      bs.analyze(30, m.sizes, m.edges, m.edges.length / 2);
      fillSparse(bs, m);
      const H = Array.from(bs.values.subarray(0, bs.storage));
      bs.clearHeld();
      bs.held.set(bs.values.subarray(0, bs.storage));
      expect(bs.factor().status).toBe('ok');
      const L = Array.from(bs.values.subarray(0, bs.storage));
      expect(L).not.toEqual(H);
      // the factorization overwrote values, not held
      expect(Array.from(bs.held.subarray(0, bs.storage))).toEqual(H);
      bs.loadHeld();
      expect(Array.from(bs.values.subarray(0, bs.storage))).toEqual(H);
      expect(bs.factor().status).toBe('ok');
      expect(Array.from(bs.values.subarray(0, bs.storage))).toEqual(L);
    }
  });

  it('reuses its storage and handles a changing pattern (the WebAssembly memory grows)', () => {
    const bs = new BlockSparseCholesky('fp64');
    for (const [seed, nb, density] of [
      [11, 30, 0.1],
      [12, 10, 0.5],
      [13, 30, 0.05],
      [14, 400, 0.05],
    ] as const) {
      const m = randomCliqueMatrix(seed, nb, density);
      bs.analyze(nb, m.sizes, m.edges, m.edges.length / 2);
      fillSparse(bs, m);
      expect(bs.factor().status).toBe('ok');
      const b = Float64Array.from({ length: m.n }, (_, i) => Math.sin(i));
      const x = new Float64Array(m.n);
      bs.solve(b, x, m.start);
      // residual H x − b
      let r = 0;
      for (let i = 0; i < m.n; i++) {
        let s = -b[i];
        for (let j = 0; j < m.n; j++) s += m.H[i * m.n + j] * x[j];
        r = Math.max(r, Math.abs(s));
      }
      expect(r).toBeLessThan(1e-10);
    }
  });

  it('orders a chain of cliques by minimum degree and keeps the fill at zero', () => {
    // path graph 0-1-2-…-9: minimum degree eliminates from the ends, no fill
    const nb = 10;
    const edges: number[] = [];
    for (let b = 0; b + 1 < nb; b++) edges.push(b, b + 1);
    const bs = new BlockSparseCholesky();
    bs.analyze(nb, new Array(nb).fill(6), edges, edges.length / 2);
    let offBlocks = 0;
    for (let a = 0; a < nb; a++) for (let b = a + 1; b < nb; b++) if (bs.blockOffset(a, b) >= 0) offBlocks++;
    expect(offBlocks).toBe(nb - 1);
    expect(bs.order[0]).toBe(0);
    expect(bs.flops).toBeLessThan((60 * 60 * 60) / 6);
  });

  it('elimination order: least weighted degree first; among up to 4 ties the least fill, then the lowest index (as a plain scan)', () => {
    // reference: explicit elimination choosing by a linear scan over the live blocks
    const reference = (nb: number, sizes: number[], edges: number[]): number[] => {
      const adj = Array.from({ length: nb }, () => new Set<number>());
      for (let e = 0; e < edges.length; e += 2) {
        if (edges[e] === edges[e + 1]) continue;
        adj[edges[e]].add(edges[e + 1]);
        adj[edges[e + 1]].add(edges[e]);
      }
      const dead = new Array<boolean>(nb).fill(false);
      const order: number[] = [];
      for (let pos = 0; pos < nb; pos++) {
        let best = Infinity;
        const degree = (b: number): number => [...adj[b]].reduce((d, u) => d + sizes[u], 0);
        for (let b = 0; b < nb; b++) if (!dead[b]) best = Math.min(best, degree(b));
        const ties = [...Array(nb).keys()].filter((b) => !dead[b] && degree(b) === best).slice(0, 4);
        const fill = (b: number): number => {
          const L = [...adj[b]];
          let f = 0;
          for (let x = 0; x < L.length; x++)
            for (let y = x + 1; y < L.length; y++) if (!adj[L[x]].has(L[y])) f += sizes[L[x]] * sizes[L[y]];
          return f;
        };
        let v = ties[0];
        for (const b of ties) if (fill(b) < fill(v)) v = b;
        dead[v] = true;
        order.push(v);
        const L = [...adj[v]];
        for (const u of L) {
          adj[u].delete(v);
          for (const y of L) if (y !== u) adj[u].add(y);
        }
      }
      return order;
    };
    const rng = seededRandom(11);
    // one instance across all the graphs too: its adjacency buffer is kept (and outgrown) between
    // analyses, which must not change an ordering
    const reused = new BlockSparseCholesky();
    for (let trial = 0; trial < 40; trial++) {
      const nb = 2 + Math.floor(rng() * 60);
      const sizes = Array.from({ length: nb }, () => 1 + Math.floor(rng() * (trial % 2 ? 1 : 7)));
      const edges: number[] = [];
      const density = 0.02 + 0.2 * rng();
      for (let a = 0; a < nb; a++) for (let b = a + 1; b < nb; b++) if (rng() < density) edges.push(a, b);
      const bs = new BlockSparseCholesky();
      bs.analyze(nb, sizes, edges, edges.length / 2);
      const expected = reference(nb, sizes, edges);
      expect(Array.from(bs.order.subarray(0, nb)), `trial ${trial}`).toEqual(expected);
      reused.analyze(nb, sizes, edges, edges.length / 2);
      expect(Array.from(reused.order.subarray(0, nb)), `trial ${trial}, reused`).toEqual(expected);
    }
  });

  it('breaks a tie of degrees by the fill: a triangle corner before a square corner', () => {
    // square 0-2-6-3 and triangle 1-4-5, every block of degree 2: eliminating 0 joins 2 and 3
    // (one fill entry), eliminating 1 joins nothing (4 and 5 are adjacent)
    const edges = [0, 2, 2, 6, 6, 3, 3, 0, 1, 4, 4, 5, 5, 1];
    const bs = new BlockSparseCholesky();
    bs.analyze(7, [1, 1, 1, 1, 1, 1, 1], edges, edges.length / 2);
    expect(bs.order[0]).toBe(1);
    // the square then fills in exactly once: L stores 7 diagonal and 7 + 1 off-diagonal entries
    expect(bs.storage).toBe(7 + 8);
  });

  it.each(['wasm', 'js'] as LinalgKernels[])(
    'reports a non-positive pivot in the permuted numbering (%s)',
    (kernels) => {
      const bs = new BlockSparseCholesky('fp64', kernels);
      bs.analyze(2, [2, 1], [0, 1], 1);
      bs.clear();
      // block 0: [[1, ·], [0, 1]], block 1: [[−1]] (indefinite), no coupling values
      bs.values[bs.diagOffset(0)] = 1;
      bs.values[bs.diagOffset(0) + 3] = 1;
      bs.values[bs.diagOffset(1)] = -1;
      const r = bs.factor();
      expect(r.status).toBe('not_spd');
      expect(r.pivot).toBe(bs.position[1] === 0 ? 0 : 2);
      expect(() => bs.solve(new Float64Array(3), new Float64Array(3), [0, 2])).toThrow();
    },
  );
});
