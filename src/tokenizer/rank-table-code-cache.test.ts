import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInFreshProcess } from "../util/fresh-process.test.util.js";
import { loadEncodingWithCodeCache } from "./rank-table-code-cache.js";

const require = createRequire(import.meta.url);

interface Encoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
}

const texts = [
  "What is the default response mode?",
  "Ünïcödé, 日本語のテキスト, emoji 🎉 and code: `const x = 42;` <|endoftext|>",
  "  leading spaces\n\n\ttabs and\r\nnewlines ",
];
const plainText = { disallowedSpecial: new Set<string>() };
const countR50k = (text: string) =>
  (require("gpt-tokenizer/cjs/encoding/r50k_base") as Encoding).countTokens(text, plainText);

/**
 * Loads the encoding in a fresh process: within one process V8 keeps compiled scripts in memory and would take the
 * second load's code from there, whatever the cache file holds.
 */
function loadInChild(name: string, dir: string): { codeCache: string; counts: number[]; tokens: number[][] } {
  const probe = `
const { loadEncodingWithCodeCache } = await import("./src/tokenizer/rank-table-code-cache.ts");
const { encoding, codeCache } = loadEncodingWithCodeCache(${JSON.stringify(name)}, ${JSON.stringify(dir)});
const plainText = { disallowedSpecial: new Set() };
const texts = ${JSON.stringify(texts)};
console.log(JSON.stringify({
  codeCache,
  counts: texts.map((text) => encoding.countTokens(text, plainText)),
  tokens: texts.map((text) => encoding.encode(text, plainText)),
}));`;
  return runInFreshProcess(probe);
}

describe("loadEncodingWithCodeCache", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ragsynth-code-cache-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const name of ["cl100k_base", "r50k_base"] as const) {
    it(`${name}: writes the cache, then uses it; both encode exactly as gpt-tokenizer's own module`, async () => {
      const own = require(`gpt-tokenizer/cjs/encoding/${name}`) as Encoding;
      const expected = {
        counts: texts.map((text) => own.countTokens(text, plainText)),
        tokens: texts.map((text) => own.encode(text, plainText)),
      };
      expect(loadInChild(name, dir)).toEqual({ codeCache: "written", ...expected });
      const files = await readdir(dir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(new RegExp(`^gpt-tokenizer-${name}-.*\\.v8cache$`));
      const written = await stat(join(dir, files[0] as string));
      expect(loadInChild(name, dir)).toEqual({ codeCache: "used", ...expected });
      expect((await stat(join(dir, files[0] as string))).mtimeMs).toBe(written.mtimeMs);
    });
  }

  it("rejects a damaged cache file, compiles from source and writes it again", async () => {
    loadEncodingWithCodeCache("r50k_base", dir);
    const [file] = await readdir(dir);
    await writeFile(join(dir, file as string), Buffer.from("not V8 code cache data"));
    const damaged = loadInChild("r50k_base", dir);
    expect(damaged.codeCache).toBe("rejected");
    expect(damaged.counts).toEqual(texts.map((text) => countR50k(text)));
    expect(loadInChild("r50k_base", dir).codeCache).toBe("used");
  });

  it("still loads when the cache folder cannot be made", async () => {
    const blocked = join(dir, "a-file");
    await writeFile(blocked, "");
    const loaded = loadEncodingWithCodeCache("r50k_base", join(blocked, "v8"));
    expect(loaded.codeCache).toBe("unwritable");
    expect((loaded.encoding as Encoding).countTokens("hello world")).toBe(2);
  });

  it("keeps one file per table and Node: an older gpt-tokenizer's file is removed, another Node's stays", async () => {
    const stale = `gpt-tokenizer-r50k_base-0.0.1-1-1-${process.version}-${process.platform}-${process.arch}.v8cache`;
    const otherNode = "gpt-tokenizer-r50k_base-0.0.1-1-1-v0.0.0-other-arch.v8cache";
    const otherTable =
      "gpt-tokenizer-cl100k_base-0.0.1-1-1-" +
      `${process.version}-${process.platform}-${process.arch}.v8cache`;
    for (const name of [stale, otherNode, otherTable]) await writeFile(join(dir, name), "old");
    expect(loadEncodingWithCodeCache("r50k_base", dir).codeCache).toBe("written");
    const files = await readdir(dir);
    expect(files).not.toContain(stale);
    expect(files).toContain(otherNode);
    expect(files).toContain(otherTable);
    expect(files).toHaveLength(3);
  });
});
