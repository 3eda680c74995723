import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInFreshProcess } from "../util/fresh-process.test.util.js";
import { MAX_SAVED_PIECES, savePieceCounts, seedPieceCounts } from "./piece-count-file.js";
import { MAX_CACHED_PIECE, PieceCounts } from "./piece-counts.js";

const require = createRequire(import.meta.url);
const { version } = require("gpt-tokenizer/package.json") as { version: string };

/** A memo over a counter that records what it was asked. */
function memo(): { counts: PieceCounts; asked: string[] } {
  const asked: string[] = [];
  const counts = new PieceCounts((piece) => {
    asked.push(piece);
    return piece.length;
  });
  return { counts, asked };
}

describe("piece count files", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ragsynth-piece-counts-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("saves the counts and seeds a new memo with them: nothing is counted again", async () => {
    const first = memo();
    // A lone surrogate and a piece of 128 characters survive the trip exactly.
    const pieces = [" hello", " world", "\ud800x", "é".repeat(MAX_CACHED_PIECE)];
    for (const piece of pieces) first.counts.count(piece);
    expect(savePieceCounts(first.counts, "cl100k_base", dir)).toBe(true);
    expect(await readdir(dir)).toEqual([`piece-counts-cl100k_base-${version}-f3.v8`]);

    const second = memo();
    expect(seedPieceCounts(second.counts, "cl100k_base", dir)).toBe(pieces.length);
    for (const piece of pieces) expect(second.counts.count(piece)).toBe(piece.length);
    expect(second.asked).toEqual([]);
    expect(second.counts.counted).toBe(0);
    // "\ud800x" is not "\ufffdx": a piece that was never saved is counted.
    expect(second.counts.count("\ufffdx")).toBe(2);
    expect(second.asked).toEqual(["\ufffdx"]);
    // The seeded memo lists its pieces in the same order of recency, after what it counted since.
    expect(second.counts.recent(10).pieces).toEqual(["\ufffdx", ...first.counts.recent(10).pieces]);
  });

  it("keeps the most recent pieces, at most MAX_SAVED_PIECES", async () => {
    const first = memo();
    for (let index = 0; index < MAX_SAVED_PIECES + 10; index++) first.counts.count(` p${index}`);
    savePieceCounts(first.counts, "cl100k_base", dir);
    const second = memo();
    expect(seedPieceCounts(second.counts, "cl100k_base", dir)).toBe(MAX_SAVED_PIECES);
    second.counts.count(` p${MAX_SAVED_PIECES + 9}`);
    second.counts.count(" p10");
    expect(second.asked).toEqual([]);
    second.counts.count(" p9");
    expect(second.asked).toEqual([" p9"]);
  });

  it("passes over a damaged file, a truncated one, and another encoding's", async () => {
    const first = memo();
    first.counts.count(" hello");
    savePieceCounts(first.counts, "r50k_base", dir);
    const file = join(dir, `piece-counts-r50k_base-${version}-f3.v8`);
    const whole = await readFile(file);

    const damaged = Buffer.from(whole);
    damaged[damaged.length - 3] = (damaged[damaged.length - 3] as number) ^ 0x20;
    await writeFile(file, damaged);
    expect(seedPieceCounts(memo().counts, "r50k_base", dir)).toBe(0);

    await writeFile(file, whole.subarray(0, whole.length - 5));
    expect(seedPieceCounts(memo().counts, "r50k_base", dir)).toBe(0);

    await writeFile(file, whole);
    expect(seedPieceCounts(memo().counts, "r50k_base", dir)).toBe(1);
    // The same bytes under cl100k's name hold r50k's counts: refused.
    await writeFile(join(dir, `piece-counts-cl100k_base-${version}-f3.v8`), whole);
    expect(seedPieceCounts(memo().counts, "cl100k_base", dir)).toBe(0);
  });

  it("removes an older gpt-tokenizer version's file and a format-1 or format-2 file when it writes, and keeps other encodings'", async () => {
    const stale = "piece-counts-cl100k_base-0.0.1.v8";
    await writeFile(join(dir, `piece-counts-cl100k_base-${version}.v8`), "format 1");
    await writeFile(join(dir, `piece-counts-cl100k_base-${version}-f2.v8`), "format 2");
    const other = "piece-counts-o200k_base-0.0.1.v8";
    await writeFile(join(dir, stale), "old");
    await writeFile(join(dir, other), "old");
    const first = memo();
    first.counts.count(" hello");
    savePieceCounts(first.counts, "cl100k_base", dir);
    expect((await readdir(dir)).sort()).toEqual([other, `piece-counts-cl100k_base-${version}-f3.v8`].sort());
  });

  it("returns false when the folder cannot be made, and seeds nothing from a missing file", async () => {
    const blocked = join(dir, "a-file");
    await writeFile(blocked, "");
    const first = memo();
    first.counts.count(" hello");
    expect(savePieceCounts(first.counts, "cl100k_base", join(blocked, "v8"))).toBe(false);
    expect(seedPieceCounts(memo().counts, "cl100k_base", join(blocked, "v8"))).toBe(0);
  });
});

// In a fresh process, through the built-in tokenizer with a cache folder set: the first process counts and saves;
// the second counts the same text from the saved counts without loading a rank table, and loads one only for a
// piece it has not seen.
describe("the built-in tokenizer with a cache folder", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ragsynth-tokenizer-cache-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const probe = (cacheDir: string, texts: string[]) => `
const { useTokenizerCache } = await import("./src/tokenizer/cache-dir.ts");
const { bpeTokenizer, saveTokenizerCache } = await import("./src/tokenizer/bpe-tokenizer.ts");
const { createRequire } = await import("node:module");
const require = createRequire(import.meta.url);
useTokenizerCache(${JSON.stringify(cacheDir)}, { compiledCode: false });
const tokenizer = bpeTokenizer("cl100k_base");
const loaded = () => Object.keys(require.cache).some((path) => /bpeRanks[\\\\/]cl100k_base/.test(path));
const steps = [];
for (const text of ${JSON.stringify(texts)}) steps.push({ count: tokenizer.count(text), tableLoaded: loaded() });
saveTokenizerCache();
console.log(JSON.stringify(steps));`;

  it("counts exactly as gpt-tokenizer, and loads the rank table only for a piece no run has counted", async () => {
    const known = "What is the default response mode? ¿Qué modo? 日本語 <|endoftext|> `x = 42;`";
    const { countTokens } = require("gpt-tokenizer/cjs/encoding/cl100k_base") as {
      countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
    };
    const exact = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

    expect(runInFreshProcess(probe(dir, [known]))).toEqual([{ count: exact(known), tableLoaded: true }]);
    // Not ASCII: a new ASCII piece is counted over the ASCII rank file the first run left (ascii-rank-file.test.ts).
    const unseen = `${known} zxqvbnmé`;
    expect(runInFreshProcess(probe(dir, [known, unseen]))).toEqual([
      { count: exact(known), tableLoaded: false },
      { count: exact(unseen), tableLoaded: true },
    ]);
    // The second run saved " zxqvbnmé" too.
    expect(runInFreshProcess(probe(dir, [unseen]))).toEqual([{ count: exact(unseen), tableLoaded: false }]);
  });
});
