import { createRequire } from "node:module";
import { type CodeCacheUse, runWithCodeCache } from "../util/v8-code-cache.js";
import type { TokenizerName } from "./tokenizer.js";

const require = createRequire(import.meta.url);

interface EncodingApi {
  getEncodingApi(name: TokenizerName, ranks: () => unknown): unknown;
}

/**
 * gpt-tokenizer's encoding `name`, built as its `encoding/<name>` module builds it (`GptEncoding.getEncodingApi`
 * over the `bpeRanks/<name>` table), with V8's compiled code of the rank table kept in `dir`. The table is a
 * ~1.2 MB (cl100k) to ~2.4 MB (o200k) script of string literals, and compiling it is most of the cost of loading
 * it that is not building the encoder's maps: with the cached code, Node 20 runs the offline `ragsynth ask` in
 * ~4.6 % fewer instructions. How the cache file is named, checked and written: {@link runWithCodeCache}; the
 * counts are the same with or without it.
 */
export function loadEncodingWithCodeCache(
  name: TokenizerName,
  dir: string,
): { encoding: unknown; codeCache: CodeCacheUse } {
  const file = require.resolve(`gpt-tokenizer/cjs/bpeRanks/${name}`);
  const { version } = require("gpt-tokenizer/package.json") as { version: string };
  const run = runWithCodeCache({ file, dir, prefix: `gpt-tokenizer-${name}-`, version });
  // The table has no functions to compile later: its cache is complete once it has run.
  const codeCache = run.save();
  const table = (run.exports as { default?: unknown }).default;
  const { GptEncoding } = require("gpt-tokenizer/cjs/GptEncoding") as { GptEncoding: EncodingApi };
  return { encoding: GptEncoding.getEncodingApi(name, () => table), codeCache };
}
