import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { TokenizerName } from "./tokenizer.js";

const require = createRequire(import.meta.url);

/** What became of the code cache on one load. */
export type CodeCacheUse = "used" | "written" | "rejected" | "unwritable";

interface EncodingApi {
  getEncodingApi(name: TokenizerName, ranks: () => unknown): unknown;
}

/**
 * gpt-tokenizer's encoding `name`, built as its `encoding/<name>` module builds it (`GptEncoding.getEncodingApi`
 * over the `bpeRanks/<name>` table), with V8's compiled code of the rank table kept in `dir`. The table is a
 * ~1.2 MB (cl100k) to ~2.4 MB (o200k) script of string literals, and compiling it is most of the cost of loading
 * it that is not building the encoder's maps: with the cached code, Node 20 runs the offline `ragsynth ask` in
 * ~4.6 % fewer instructions. Node 22 has `module.enableCompileCache()` for this; Node 20 does not.
 *
 * The cache file is named by everything the compiled code depends on: the gpt-tokenizer version, the table
 * file's size and modification time (a changed file never meets old code: V8's own check looks at the source's
 * length only), and the Node version and platform. V8 checks the data itself (its version, its flags, a checksum)
 * and rejects what does not fit; the table is compiled from source then, and the file rewritten. A cache that
 * cannot be read or written only costs the compile; the counts are the same either way.
 */
export function loadEncodingWithCodeCache(
  name: TokenizerName,
  dir: string,
): { encoding: unknown; codeCache: CodeCacheUse } {
  const file = require.resolve(`gpt-tokenizer/cjs/bpeRanks/${name}`);
  const { version } = require("gpt-tokenizer/package.json") as { version: string };
  const { size, mtimeMs } = statSync(file);
  const prefix = `gpt-tokenizer-${name}-`;
  // node:v8's cachedDataVersionTag() would name the V8 exactly, but loading node:v8 costs ~4 ms; V8 rejects data
  // from another version or other flags anyway, so the Node version and platform only keep two Nodes apart.
  const node = `${process.version}-${process.platform}-${process.arch}`;
  const cacheFile = join(dir, `${prefix}${version}-${size}-${Math.trunc(mtimeMs)}-${node}.v8cache`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // The CommonJS wrapper, as require() would run the file.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, "utf8")}\n})`;
  const { Script } = require("node:vm") as typeof import("node:vm");
  const script = new Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as { default?: unknown } };
  script.runInThisContext()(module.exports, require, module, file, dirname(file));
  let codeCache: CodeCacheUse = cachedData && !script.cachedDataRejected ? "used" : "written";
  if (codeCache === "written") {
    if (cachedData) codeCache = "rejected";
    if (!writeCache(dir, cacheFile, [prefix, `-${node}.v8cache`], script.createCachedData())) {
      codeCache = "unwritable";
    }
  }
  const { GptEncoding } = require("gpt-tokenizer/cjs/GptEncoding") as { GptEncoding: EncodingApi };
  return { encoding: GptEncoding.getEncodingApi(name, () => module.exports.default), codeCache };
}

/**
 * Writes the cache file whole (a temporary file, renamed), and removes this table's stale files for this Node (an
 * older gpt-tokenizer's); another Node version's file stays, so two Nodes do not take turns rewriting it.
 */
function writeCache(
  dir: string,
  cacheFile: string,
  [prefix, suffix]: [string, string],
  data: Buffer,
): boolean {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temporary, data);
    renameSync(temporary, cacheFile);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Nothing was written, or it cannot be removed either.
    }
    return false;
  }
  try {
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(prefix) && entry.endsWith(suffix) && join(dir, entry) !== cacheFile) {
        rmSync(join(dir, entry), { force: true });
      }
    }
  } catch {
    // Stale files stay; they are never read.
  }
  return true;
}
