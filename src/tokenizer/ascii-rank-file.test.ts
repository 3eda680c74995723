import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInFreshProcess } from "../util/fresh-process.test.util.js";
import { asciiCounter, rankMapOf } from "./ascii-piece-count.js";
import { AsciiRankFile } from "./ascii-rank-file.js";
import type { TokenizerName } from "./tokenizer.js";

const require = createRequire(import.meta.url);
const { version } = require("gpt-tokenizer/package.json") as { version: string };
const patterns = require("gpt-tokenizer/cjs/encodingParams/constants") as Record<string, RegExp>;

interface Encoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}
const encoding = (name: TokenizerName) => require(`gpt-tokenizer/cjs/encoding/${name}`) as Encoding;
const exact = (name: TokenizerName) => (text: string) =>
  encoding(name).countTokens(text, { disallowedSpecial: new Set() });
const pattern = (name: TokenizerName) => {
  const source = name === "o200k_base" ? patterns.O200K_TOKEN_SPLIT_REGEX : patterns.CL100K_TOKEN_SPLIT_REGEX;
  return new RegExp((source as RegExp).source, `${(source as RegExp).flags.replace("g", "")}g`);
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-ascii-ranks-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const save = (name: TokenizerName, countTokens = exact(name)) =>
  AsciiRankFile.save(dir, name, rankMapOf(encoding(name)) as Map<string, number>, pattern(name), countTokens);

describe("the ASCII rank file", () => {
  for (const name of ["cl100k_base", "o200k_base"] as const) {
    it(`counts ASCII text as gpt-tokenizer does, from the file alone (${name})`, async () => {
      expect(save(name)).toBe(true);
      expect(await readdir(dir)).toEqual([`ascii-ranks-${name}-${version}-f2.bin`]);
      const file = AsciiRankFile.open(dir, name) as AsciiRankFile;
      const ranks = rankMapOf(encoding(name)) as Map<string, number>;
      expect(file.size).toBe(
        [...ranks.keys()].filter((token) => [...token].every((char) => char.charCodeAt(0) < 128)).length,
      );
      const count = asciiCounter(file, pattern(name));
      const real = (await readFile(new URL("../../README.md", import.meta.url), "utf8")).replace(
        /[^ -~\n\t]/g,
        "",
      );
      for (const text of [
        real,
        real.slice(0, 5000),
        "zxqvbnmlkj qqqqqqqqqq 1234567 \t\t\n  x",
        "<|endoftext|>",
      ])
        expect(count(text)).toBe(exact(name)(text));
      fc.assert(
        fc.property(fc.string({ unit: "binary-ascii", maxLength: 80 }), (text) => {
          expect(count(text)).toBe(exact(name)(text));
        }),
        { numRuns: 300 },
      );
      expect(count("naïve")).toBeUndefined();
    });
  }

  it("is not written when its counts disagree with the encoding's", async () => {
    expect(save("cl100k_base", (text) => exact("cl100k_base")(text) + 1)).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it("is not used damaged, truncated, of another encoding or of another format", async () => {
    expect(save("cl100k_base")).toBe(true);
    const path = join(dir, `ascii-ranks-cl100k_base-${version}-f2.bin`);
    const good = await readFile(path);
    expect(AsciiRankFile.open(dir, "cl100k_base")).toBeDefined();
    expect(AsciiRankFile.open(dir, "o200k_base")).toBeUndefined();
    const damaged = Buffer.from(good);
    const middle = Math.floor(damaged.length / 2);
    damaged.writeUInt8((damaged.readUInt8(middle) ^ 0x20) & 0xff, middle);
    for (const bytes of [damaged, good.subarray(0, good.length - 7), good.subarray(0, 10), Buffer.alloc(0)]) {
      await writeFile(path, bytes);
      expect(AsciiRankFile.open(dir, "cl100k_base")).toBeUndefined();
    }
    const foreign = Buffer.from(good);
    foreign.writeUInt32LE(0x54505352, 0);
    await writeFile(path, foreign);
    expect(AsciiRankFile.open(dir, "cl100k_base")).toBeUndefined();
  });

  it("lets a run count new ASCII pieces without loading the rank table, which loads for other text", () => {
    const probe = (text: string, other: string) => `
const { useTokenizerCache } = await import("./src/tokenizer/cache-dir.ts");
const { bpeTokenizer, saveTokenizerCache } = await import("./src/tokenizer/bpe-tokenizer.ts");
const { createRequire } = await import("node:module");
const require = createRequire(import.meta.url);
const loaded = () => Object.keys(require.cache).some((path) => /bpeRanks[\\\\/]cl100k_base/.test(path));
useTokenizerCache(${JSON.stringify(dir)}, { compiledCode: false });
const counts = [bpeTokenizer("cl100k_base").count(${JSON.stringify(text)})];
const tableLoaded = [loaded()];
counts.push(bpeTokenizer("cl100k_base").count(${JSON.stringify(other)}));
tableLoaded.push(loaded());
saveTokenizerCache();
console.log(JSON.stringify({ counts, tableLoaded }));`;
    const expected = (text: string, other: string) => [
      exact("cl100k_base")(text),
      exact("cl100k_base")(other),
    ];
    // The first run loads the table and leaves the file; the next counts new words over it, and loads the table
    // for words with other characters (no run has counted).
    const first = " zqxwvb internationalization keepAliveTimeout=30000";
    expect(runInFreshProcess(probe(first, " naïve café"))).toEqual({
      counts: expected(first, " naïve café"),
      tableLoaded: [true, true],
    });
    expect(AsciiRankFile.open(dir, "cl100k_base")).toBeDefined();
    const next = " wvbqzx plmkjh tttrrrqqq=987654 https://example.org/x_y-z";
    expect(runInFreshProcess(probe(next, " żółw jeż"))).toEqual({
      counts: expected(next, " żółw jeż"),
      tableLoaded: [false, true],
    });
  }, 60_000);
});
