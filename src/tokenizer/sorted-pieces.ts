/** Pieces sorted by code unit, with their counts: their UTF-16 text and its offsets (one more than pieces). */
export class SortedPieces {
  readonly offsets: Uint32Array;
  readonly counts: Uint16Array;
  readonly text: Uint16Array;

  private constructor(offsets: Uint32Array, counts: Uint16Array, text: Uint16Array) {
    this.offsets = offsets;
    this.counts = counts;
    this.text = text;
  }

  /** The pieces, or undefined when the offsets do not fit the text (a damaged or foreign file). */
  static of(offsets: Uint32Array, counts: Uint16Array, text: Uint16Array): SortedPieces | undefined {
    if (offsets.length !== counts.length + 1 || offsets[0] !== 0) return undefined;
    for (let index = 1; index < offsets.length; index++) {
      if ((offsets[index] as number) < (offsets[index - 1] as number)) return undefined;
    }
    // Text is padded to 4 bytes: at most one code unit past the last piece.
    const end = offsets[counts.length] as number;
    if (end > text.length || text.length - end > 1) return undefined;
    return new SortedPieces(offsets, counts, text.subarray(0, end));
  }

  get size(): number {
    return this.counts.length;
  }

  /** The index of `piece`, or -1. */
  indexOf(piece: string): number {
    let low = 0;
    let high = this.size - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = this.compare(piece, middle);
      if (order === 0) return middle;
      if (order < 0) high = middle - 1;
      else low = middle + 1;
    }
    return -1;
  }

  piece(index: number): string {
    return String.fromCharCode(
      ...this.text.subarray(this.offsets[index] as number, this.offsets[index + 1] as number),
    );
  }

  // Code unit order, as Array.prototype.sort orders strings.
  compare(piece: string, index: number): number {
    const start = this.offsets[index] as number;
    const length = (this.offsets[index + 1] as number) - start;
    const shared = Math.min(piece.length, length);
    for (let at = 0; at < shared; at++) {
      const difference = piece.charCodeAt(at) - (this.text[start + at] as number);
      if (difference !== 0) return difference;
    }
    return piece.length - length;
  }

  /** Whether this one's piece `index` and `other`'s piece `at` differ (0 when equal). */
  compareAt(index: number, other: SortedPieces, at: number): number {
    const a = this.text.subarray(this.offsets[index] as number, this.offsets[index + 1] as number);
    const b = other.text.subarray(other.offsets[at] as number, other.offsets[at + 1] as number);
    if (a.length !== b.length) return a.length - b.length;
    for (let unit = 0; unit < a.length; unit++)
      if (a[unit] !== b[unit]) return (a[unit] as number) - (b[unit] as number);
    return 0;
  }
}
