import { rmSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInFreshProcess } from "../util/fresh-process.test.util.js";
import { MAX_SAVED_PIECES, seedPieceCounts } from "./piece-count-file.js";
import { PieceCountTable, savePieceCountTable } from "./piece-count-table.js";
import { PieceCounts } from "./piece-counts.js";
import { BLOCK_PIECES } from "./piece-table-file.js";

const require = createRequire(import.meta.url);
const { version } = require("gpt-tokenizer/package.json") as { version: string };

describe("the piece count table", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ragsynth-piece-table-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("finds every piece saved, with its count, and no other", async () => {
    // A lone surrogate, an astral character, a long piece, and pieces that share prefixes.
    const pieces = [" hello", " hell", " help", "\ud800x", "😀", "é".repeat(128), "\n", " "];
    const counts = pieces.map((_, index) => index + 1);
    // A table of the former format (checked by another hash) is not read, and goes when this one is written.
    await writeFile(join(dir, `piece-table-cl100k_base-${version}.bin`), "RSPT former format");
    expect(PieceCountTable.open(dir, "cl100k_base")).toBeUndefined();
    expect(savePieceCountTable(dir, "cl100k_base", pieces, counts)).toBe(true);
    expect(await readdir(dir)).toEqual([`piece-table-cl100k_base-${version}-f3.bin`]);
    const table = PieceCountTable.open(dir, "cl100k_base");
    expect(table?.size).toBe(pieces.length);
    for (const [index, piece] of pieces.entries()) expect(table?.get(piece)).toBe(counts[index]);
    for (const other of [" he", " hello!", "\ufffdx", "", "  ", "é".repeat(127)])
      expect(table?.get(other)).toBeUndefined();
    expect(PieceCountTable.open(dir, "o200k_base")).toBeUndefined();
  });

  it("keeps the pieces of the table it replaces", () => {
    savePieceCountTable(dir, "cl100k_base", [" a", " b"], [1, 2]);
    savePieceCountTable(dir, "cl100k_base", [" c"], [3]);
    const table = PieceCountTable.open(dir, "cl100k_base");
    expect([" a", " b", " c", " d"].map((piece) => table?.get(piece))).toEqual([1, 2, 3, undefined]);
  });

  it("merges a run's pieces into the table as a merge of both, sorted, would (the run's count winning)", () => {
    const piece = fc.oneof(
      fc.constantFrom(" a", " b", " ab", "\ud800", "\ud800x", "😀", "\n", " "),
      fc.string({ unit: "binary", minLength: 1, maxLength: 6 }),
    );
    const entries = fc.uniqueArray(fc.tuple(piece, fc.integer({ min: 1, max: 9 })), {
      selector: ([text]) => text,
      maxLength: 40,
    });
    fc.assert(
      fc.property(entries, entries, fc.integer({ min: 0, max: 50 }), (before, run, keep) => {
        rmSync(join(dir, `piece-table-cl100k_base-${version}-f3.bin`), { force: true });
        const old = savePieceCountTable(
          dir,
          "cl100k_base",
          before.map(([text]) => text),
          before.map(([, n]) => n),
        );
        expect(old).toBe(true);
        const table = PieceCountTable.open(dir, "cl100k_base") as PieceCountTable;
        // The reference: the run's pieces, then the table's others in its order up to `keep`, sorted.
        const fresh = new Map(run);
        const expected = new Map(fresh);
        let kept = 0;
        const { pieces, counts } = table.entries();
        pieces.forEach((text, index) => {
          if (fresh.has(text) || kept >= keep) return;
          kept++;
          expected.set(text, counts[index] as number);
        });
        const sorted = [...fresh.keys()].sort();
        const merged = table.mergedWith(sorted, fresh, keep);
        const got = [...merged.counts].map((count, index) => [
          String.fromCharCode(...merged.text.subarray(merged.offsets[index], merged.offsets[index + 1])),
          count,
        ]);
        expect(got).toEqual([...expected.keys()].sort().map((text) => [text, expected.get(text)]));
        // And through the file, with no cap in reach.
        savePieceCountTable(
          dir,
          "cl100k_base",
          run.map(([text]) => text),
          run.map(([, n]) => n),
        );
        const written = PieceCountTable.open(dir, "cl100k_base") as PieceCountTable;
        const all = new Map([...before, ...run]);
        expect(written.entries().pieces).toEqual([...all.keys()].sort());
        for (const [text, count] of all) expect(written.get(text)).toBe(count);
      }),
      { numRuns: 200 },
    );
  });

  it("is passed over when its header or directory is damaged, and a damaged block answers nothing", async () => {
    savePieceCountTable(dir, "cl100k_base", [" hello", " world"], [1, 1]);
    const file = join(dir, `piece-table-cl100k_base-${version}-f3.bin`);
    const bytes = await readFile(file);
    const flipped = (at: number) => {
      const copy = Buffer.from(bytes);
      copy.writeUInt8(copy.readUInt8(at) ^ 1, at);
      return copy;
    };
    // The last byte is the one block's text: the table opens, and answers nothing rather than a wrong count.
    await writeFile(file, flipped(bytes.length - 1));
    const table = PieceCountTable.open(dir, "cl100k_base");
    expect(table?.size).toBe(2);
    expect([table?.get(" hello"), table?.get(" world")]).toEqual([undefined, undefined]);
    expect(table?.entries()).toEqual({ pieces: [], counts: [] });
    // A byte of the header (the number of pieces) or the directory (the first block's start), or a cut file.
    for (const at of [8, 24]) {
      await writeFile(file, flipped(at));
      expect(PieceCountTable.open(dir, "cl100k_base")).toBeUndefined();
    }
    await writeFile(file, bytes.subarray(0, bytes.length - 4));
    expect(PieceCountTable.open(dir, "cl100k_base")).toBeUndefined();
    await writeFile(file, bytes.subarray(0, 10));
    expect(PieceCountTable.open(dir, "cl100k_base")).toBeUndefined();
  });

  it("reads the blocks a lookup needs, each checked: a damaged one loses only its own pieces", async () => {
    const pieces = Array.from(
      { length: 3 * BLOCK_PIECES + 5 },
      (_, index) => ` w${String(index).padStart(4, "0")}`,
    );
    const counts = pieces.map((_, index) => 1 + (index % 7));
    savePieceCountTable(dir, "cl100k_base", pieces, counts);
    const file = join(dir, `piece-table-cl100k_base-${version}-f3.bin`);
    const bytes = await readFile(file);
    // The second block's last byte (of its text): the directory, after the 24 bytes of header, starts with the
    // blocks' starts in the file, and the second block ends where the third starts.
    const blockStarts = new Uint32Array(
      bytes.buffer.slice(bytes.byteOffset + 24, bytes.byteOffset + 24 + 20),
    );
    bytes.writeUInt8(bytes.readUInt8((blockStarts[2] as number) - 1) ^ 1, (blockStarts[2] as number) - 1);
    await writeFile(file, bytes);
    const table = PieceCountTable.open(dir, "cl100k_base") as PieceCountTable;
    expect(table.size).toBe(pieces.length);
    const got = pieces.map((piece) => table.get(piece));
    expect(got.slice(0, BLOCK_PIECES)).toEqual(counts.slice(0, BLOCK_PIECES));
    expect(got.slice(BLOCK_PIECES, 2 * BLOCK_PIECES)).toEqual(Array(BLOCK_PIECES).fill(undefined));
    expect(got.slice(2 * BLOCK_PIECES)).toEqual(counts.slice(2 * BLOCK_PIECES));
    // Merged into a new table, the damaged block's pieces are dropped (counted again when met), the rest kept.
    savePieceCountTable(dir, "cl100k_base", [" fresh"], [2]);
    const merged = PieceCountTable.open(dir, "cl100k_base") as PieceCountTable;
    expect(merged.size).toBe(pieces.length - BLOCK_PIECES + 1);
    expect([
      merged.get(" fresh"),
      merged.get(pieces[0] as string),
      merged.get(pieces[BLOCK_PIECES] as string),
    ]).toEqual([2, counts[0], undefined]);
  });

  it("reads the file it opened, even after a run saved a new table in its place", () => {
    savePieceCountTable(dir, "cl100k_base", [" a"], [1]);
    const byBlocks = PieceCountTable.open(dir, "cl100k_base", { whole: false }) as PieceCountTable;
    const whole = PieceCountTable.open(dir, "cl100k_base", { whole: true }) as PieceCountTable;
    // Another run saves the table (a new file renamed over it) before either read a block.
    savePieceCountTable(dir, "cl100k_base", [" b"], [2]);
    for (const table of [byBlocks, whole]) expect([table.get(" a"), table.get(" b")]).toEqual([1, undefined]);
    expect([" a", " b"].map((piece) => PieceCountTable.open(dir, "cl100k_base")?.get(piece))).toEqual([1, 2]);
  });

  it("answers a memo's misses before its counter, without counting them as counted", () => {
    const asked: string[] = [];
    const known = new Map([[" known", 7]]);
    const counts = new PieceCounts(
      (piece) => {
        asked.push(piece);
        return 1;
      },
      (piece) => known.get(piece),
    );
    expect(counts.count(" known")).toBe(7);
    expect(counts.count(" new")).toBe(1);
    expect(asked).toEqual([" new"]);
    expect(counts.counted).toBe(1);
    // What the table answered is left out of the pieces saved beside it, with every count unchanged.
    expect(counts.recent(10)).toEqual({ pieces: [" new", " known"], counts: [1, 7] });
    expect(counts.recent(10, { exceptKnown: true })).toEqual({ pieces: [" new"], counts: [1] });
    expect(counts.count(" known")).toBe(7);
  });
});

// In fresh processes through the built-in tokenizer with a cache folder: a run that counts more distinct pieces than
// the recent ones kept (an index of a large folder) saves them all in the table; a later run that meets its first
// pieces again (an ask right after one of its files was edited) finds them there and loads no rank table.
describe("the built-in tokenizer with a piece count table", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ragsynth-piece-table-run-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // Words of letters only (one piece each): ` qa`, ` qb`, … in the order of `index`.
  const word = (index: number) => {
    let letters = "";
    for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26))
      letters = String.fromCharCode(97 + ((rest - 1) % 26)) + letters;
    return ` q${letters}`;
  };
  const words = (count: number) => Array.from({ length: count }, (_, index) => word(index)).join("");
  const probe = (cacheDir: string, wordCount: number, more = "") => `
const { useTokenizerCache } = await import("./src/tokenizer/cache-dir.ts");
const { bpeTokenizer, saveTokenizerCache } = await import("./src/tokenizer/bpe-tokenizer.ts");
const { createRequire } = await import("node:module");
const require = createRequire(import.meta.url);
useTokenizerCache(${JSON.stringify(cacheDir)}, { compiledCode: false });
const word = ${word.toString()};
const text = Array.from({ length: ${wordCount} }, (_, index) => word(index)).join("") + ${JSON.stringify(more)};
const count = bpeTokenizer("cl100k_base").count(text);
const tableLoaded = Object.keys(require.cache).some((path) => /bpeRanks[\\\\/]cl100k_base/.test(path));
saveTokenizerCache();
console.log(JSON.stringify({ count, tableLoaded }));`;

  it("counts pieces the recent ones no longer hold from the table, exactly", () => {
    const { countTokens } = require("gpt-tokenizer/cjs/encoding/cl100k_base") as {
      countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
    };
    const exact = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
    // More distinct pieces than the recent ones a run keeps; the first words were counted first, so the recent
    // pieces saved no longer hold them.
    const all = MAX_SAVED_PIECES + 2000;
    expect(runInFreshProcess(probe(dir, all))).toEqual({ count: exact(words(all)), tableLoaded: true });
    expect(runInFreshProcess(probe(dir, 200))).toEqual({ count: exact(words(200)), tableLoaded: false });
  }, 60_000);

  it("keeps in the recent pieces only what the table lacks, so a run loads no piece the table holds", () => {
    const { countTokens } = require("gpt-tokenizer/cjs/encoding/cl100k_base") as {
      countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
    };
    const exact = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
    const recentSaved = () => seedPieceCounts(new PieceCounts(() => 1), "cl100k_base", dir);
    // An index-sized run writes every piece into the table, and none into the recent file.
    expect(runInFreshProcess(probe(dir, 3000))).toEqual({ count: exact(words(3000)), tableLoaded: true });
    expect(recentSaved()).toBe(0);
    // An ask-sized run meeting five new pieces counts them (over the ASCII rank file the first run left, so
    // without the rank table) and keeps only those.
    expect(runInFreshProcess(probe(dir, 3005))).toEqual({ count: exact(words(3005)), tableLoaded: false });
    expect(recentSaved()).toBe(5);
    // The next run finds the five in the recent file and the rest in the table: no rank table, the same count.
    expect(runInFreshProcess(probe(dir, 3005))).toEqual({ count: exact(words(3005)), tableLoaded: false });
    expect(recentSaved()).toBe(5);
  }, 60_000);

  it("keeps long pieces in the table too, so a run meeting one again loads no rank table", async () => {
    // Pieces over 128 characters the memo never holds: a line of box-drawing characters (one piece of 202) and a
    // Thai run of 564 without a space (bounded pieces of 512 and 52); neither is ASCII, so the ASCII rank file
    // cannot count them.
    const long = ` \n┌${"─".repeat(200)}┐\n ${"ภาษาไทย".repeat(80)}ภาษา`;
    const reference = await mkdtemp(join(tmpdir(), "ragsynth-piece-table-ref-"));
    try {
      // An index-sized run writes the table, with the long pieces it counted.
      expect(runInFreshProcess(probe(dir, 3000, long))).toMatchObject({ tableLoaded: true });
      // A later run meeting them with a few words counts them from the table, the same as a run without one.
      const fresh = runInFreshProcess(probe(reference, 10, long)) as { count: number; tableLoaded: boolean };
      expect(fresh.tableLoaded).toBe(true);
      expect(runInFreshProcess(probe(dir, 10, long))).toEqual({ count: fresh.count, tableLoaded: false });
    } finally {
      await rm(reference, { recursive: true, force: true });
    }
  }, 60_000);
});
