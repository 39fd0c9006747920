/**
 * The structure of a packed SAP problem — cliques and their sizes, constraint kinds and row counts,
 * which cliques each constraint couples and where its Jacobian blocks lie — kept from one solve to
 * compare with the next. A robot without contacts, or a scene whose contact set holds, packs the
 * same structure step after step: the solver then keeps the layout, participation and kernel
 * bindings it derived from it and refreshes only the values (A, J, parameters).
 */
import { growI32, growU8, type PackedSapProblem } from './packed_problem';

export class StructureKey {
  private valid = false;
  private nCliques = 0;
  private nCon = 0;
  private nBlk = 0;
  private nJ = 0;
  private cliqueNv: Int32Array = new Int32Array(0);
  private kind: Uint8Array = new Uint8Array(0);
  private rows: Int32Array = new Int32Array(0);
  private blkStart: Int32Array = new Int32Array(0);
  private blkClique: Int32Array = new Int32Array(0);
  private blkJ: Int32Array = new Int32Array(0);

  /** true when `pk` has the structure last {@link record}ed (and one was recorded since {@link clear}) */
  matches(pk: PackedSapProblem): boolean {
    if (!this.valid) return false;
    const nCl = pk.nCliques;
    const nCon = pk.nCon;
    const nBlk = pk.blkStart[nCon];
    if (nCl !== this.nCliques || nCon !== this.nCon || nBlk !== this.nBlk || pk.nJ !== this.nJ) return false;
    for (let c = 0; c < nCl; c++) if (pk.cliqueNv[c] !== this.cliqueNv[c]) return false;
    for (let i = 0; i < nCon; i++) {
      if (pk.kind[i] !== this.kind[i] || pk.rows[i] !== this.rows[i]) return false;
      if (pk.blkStart[i + 1] !== this.blkStart[i + 1]) return false;
    }
    for (let b = 0; b < nBlk; b++) {
      if (pk.blkClique[b] !== this.blkClique[b] || pk.blkJ[b] !== this.blkJ[b]) return false;
    }
    return true;
  }

  /** remembers the structure of `pk` */
  record(pk: PackedSapProblem): void {
    const nCl = pk.nCliques;
    const nCon = pk.nCon;
    const nBlk = pk.blkStart[nCon];
    this.nCliques = nCl;
    this.nCon = nCon;
    this.nBlk = nBlk;
    this.nJ = pk.nJ;
    this.cliqueNv = growI32(this.cliqueNv, nCl);
    this.kind = growU8(this.kind, nCon);
    this.rows = growI32(this.rows, nCon);
    this.blkStart = growI32(this.blkStart, nCon + 1);
    this.blkClique = growI32(this.blkClique, nBlk);
    this.blkJ = growI32(this.blkJ, nBlk);
    // (loops, not set(subarray): no view allocated per solve where the structure changes every step)
    for (let c = 0; c < nCl; c++) this.cliqueNv[c] = pk.cliqueNv[c];
    for (let i = 0; i < nCon; i++) {
      this.kind[i] = pk.kind[i];
      this.rows[i] = pk.rows[i];
    }
    for (let i = 0; i <= nCon; i++) this.blkStart[i] = pk.blkStart[i];
    for (let b = 0; b < nBlk; b++) {
      this.blkClique[b] = pk.blkClique[b];
      this.blkJ[b] = pk.blkJ[b];
    }
    this.valid = true;
  }

  /** forgets the recorded structure: the next {@link matches} is false */
  clear(): void {
    this.valid = false;
  }
}
