import { createRequire } from "node:module";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";
import { writeCache } from "../util/v8-code-cache.js";
import { encodeTable, PieceTableFile } from "./piece-table-file.js";
import type { SortedPieces } from "./sorted-pieces.js";
import type { TokenizerName } from "./tokenizer.js";

const require = createRequire(import.meta.url);

/**
 * The most pieces the table keeps (~20 MB at most). The bench's 30 MB corpus has ~130k distinct pieces, its 300 MB
 * one a few hundred thousand.
 */
export const MAX_TABLE_PIECES = 1 << 20;

/**
 * Every piece count earlier runs kept, looked up by binary search in the file's bytes (nothing is decoded or put in
 * a map): a run meets a piece its memo lacks and looks it up here instead of loading a rank table (~70 ms) to count
 * it again. The saved recent pieces (piece-count-file.ts, loaded into the memo by every run) hold only what this
 * table lacks, the pieces asks counted since an index last wrote it: loading 65,536 of them into a map took an
 * unchanged ask ~30 ms that looking them up here does not.
 *
 * Opened, it holds the file's directory of blocks; a block is read and checked the first time a lookup needs it
 * (piece-table-file.ts). A block that is damaged answers nothing (its pieces are counted again).
 */
export class PieceCountTable {
  readonly #file: PieceTableFile;

  private constructor(file: PieceTableFile) {
    this.#file = file;
  }

  /**
   * The table of `name`'s counts in `dir`, or undefined when there is none (or a damaged or foreign file). With
   * `whole`, the file is read at once: to merge it into a new one, and by default in a worker thread, which splits a
   * build's files and looks up most of the table (and whose end would leave a held file open: the registry that
   * closes it does not run then). Else block by block as lookups need them, from the file held open.
   */
  static open(
    dir: string,
    name: TokenizerName,
    { whole = !isMainThread }: { whole?: boolean } = {},
  ): PieceCountTable | undefined {
    const file = PieceTableFile.open(fileOf(dir, name).file, { whole });
    return file && new PieceCountTable(file);
  }

  /** A table of no pieces. */
  static empty(): PieceCountTable {
    return new PieceCountTable(PieceTableFile.empty());
  }

  /** Pieces held, as the file says. */
  get size(): number {
    return this.#file.size;
  }

  /** The count of `piece`, or undefined when the table does not hold it (or its block cannot be read). */
  get(piece: string): number | undefined {
    const found = this.#file.blockFor(piece);
    const block = found < 0 ? null : this.#file.block(found);
    if (!block) return undefined;
    const index = block.indexOf(piece);
    return index < 0 ? undefined : block.counts[index];
  }

  /** Every piece held with its count, in the table's order (a damaged block's left out). */
  entries(): { pieces: string[]; counts: number[] } {
    const pieces: string[] = [];
    const counts: number[] = [];
    for (const block of this.#readableBlocks()) {
      for (let index = 0; index < block.size; index++) {
        pieces.push(block.piece(index));
        counts.push(block.counts[index] as number);
      }
    }
    return { pieces, counts };
  }

  /**
   * The table's pieces merged with `sorted` (distinct pieces in code unit order, with `counts`): a piece of both
   * takes `counts`', and of this table's others the first `keep` in its order stay (a damaged block's are dropped).
   * The two sorted runs are merged as UTF-16 code units, so no string is made of a piece of this table (a table of
   * ~500k pieces made as strings took ~1.6 s and ~200 MB at the end of every index run that wrote it).
   */
  mergedWith(
    sorted: readonly string[],
    counts: ReadonlyMap<string, number>,
    keep: number,
  ): { offsets: Uint32Array; counts: Uint16Array; text: Uint16Array } {
    const blocks = this.#readableBlocks();
    let held = 0;
    let heldChars = 0;
    for (const block of blocks) {
      held += block.size;
      heldChars += block.text.length;
    }
    let freshChars = 0;
    for (const piece of sorted) freshChars += piece.length;
    const capacity = sorted.length + Math.min(keep, held);
    const outOffsets = new Uint32Array(capacity + 1);
    const outCounts = new Uint16Array(capacity);
    const outText = new Uint16Array(freshChars + heldChars);
    let size = 0;
    let chars = 0;
    const emitFresh = (piece: string) => {
      outOffsets[size] = chars;
      outCounts[size] = counts.get(piece) as number;
      for (let at = 0; at < piece.length; at++) outText[chars + at] = piece.charCodeAt(at);
      chars += piece.length;
      size++;
    };
    let kept = 0;
    const emitOld = (block: SortedPieces, index: number) => {
      if (kept >= keep) return;
      kept++;
      const start = block.offsets[index] as number;
      const end = block.offsets[index + 1] as number;
      outOffsets[size] = chars;
      outCounts[size] = block.counts[index] as number;
      outText.set(block.text.subarray(start, end), chars);
      chars += end - start;
      size++;
    };
    let next = 0;
    for (const block of blocks) {
      for (let index = 0; index < block.size; ) {
        const order = next < sorted.length ? block.compare(sorted[next] as string, index) : 1;
        if (order < 0) emitFresh(sorted[next++] as string);
        else if (order > 0) emitOld(block, index++);
        else {
          emitFresh(sorted[next++] as string);
          index++;
        }
      }
    }
    while (next < sorted.length) emitFresh(sorted[next++] as string);
    outOffsets[size] = chars;
    return {
      offsets: outOffsets.subarray(0, size + 1),
      counts: outCounts.subarray(0, size),
      text: outText.subarray(0, chars),
    };
  }

  #readableBlocks(): SortedPieces[] {
    const blocks: SortedPieces[] = [];
    for (let index = 0; index < this.#file.blocks; index++) {
      const block = this.#file.block(index);
      if (block) blocks.push(block);
    }
    return blocks;
  }
}

/**
 * Writes the table of `name` in `dir`: `pieces` (with `counts`) and, up to {@link MAX_TABLE_PIECES}, the pieces of the
 * table there already (another folder's pieces stay). Returns false when it could not be written.
 */
export function savePieceCountTable(
  dir: string,
  name: TokenizerName,
  pieces: readonly string[],
  counts: ArrayLike<number>,
): boolean {
  const fresh = new Map<string, number>();
  for (let index = 0; index < pieces.length && fresh.size < MAX_TABLE_PIECES; index++) {
    const piece = pieces[index] as string;
    if (!fresh.has(piece)) fresh.set(piece, counts[index] as number);
  }
  const sorted = [...fresh.keys()].sort();
  const old = PieceCountTable.open(dir, name, { whole: true }) ?? PieceCountTable.empty();
  const data = encodeTable(old.mergedWith(sorted, fresh, MAX_TABLE_PIECES - sorted.length));
  const { file, prefix, suffix } = fileOf(dir, name);
  return writeCache(file, [prefix, suffix], data);
}

/** The table's file: per encoding, gpt-tokenizer version (the counts depend on both only) and file format. */
function fileOf(dir: string, name: TokenizerName): { file: string; prefix: string; suffix: string } {
  const prefix = `piece-table-${name}-`;
  const suffix = ".bin";
  const { version } = require("gpt-tokenizer/package.json") as { version: string };
  // -f3: in checked blocks (-f2 was one block, read and checked whole; the file without a format was checked by a hash
  // of our own); writing it removes those.
  return { file: join(dir, `${prefix}${version}-f3${suffix}`), prefix, suffix };
}
