import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";

/** What became of the code cache on one load. */
export type CodeCacheUse = "used" | "written" | "rejected" | "unwritable";

/** A CommonJS file run with V8's compiled code from a cache file; see {@link runWithCodeCache}. */
export interface CachedRun {
  /** The file's `module.exports`. */
  exports: unknown;
  /**
   * Writes the cache file when there was none or V8 rejected it; a no-op after that. Called late, it keeps the
   * functions compiled since the file ran too (V8 compiles functions when first called), so the next run
   * compiles none of what this one used. With `wider` (this run went down paths the cache's run may not have, see
   * {@link RunWithCodeCacheOptions.widerPrefix}), it also writes the wider file when the cache used was not one.
   * Returns what became of the cache.
   */
  save(options?: { wider?: boolean }): CodeCacheUse;
}

/** Options of {@link runWithCodeCache}. */
export interface RunWithCodeCacheOptions {
  /** The CommonJS file to run. */
  file: string;
  /** The folder of cache files. */
  dir: string;
  /**
   * The start of the cache file's name, naming what it holds (`cli-ask-`). The rest names everything the
   * compiled code depends on: `version`, the file's size and modification time (a changed file never meets old
   * code: V8's own check looks at the source's length only), and the Node version and platform.
   */
  prefix: string;
  /** The version of the package the file belongs to, when it has one beside the file's size and time. */
  version?: string | undefined;
  /**
   * The start of the name of a wider cache file: one written by a run that went down more of the file's paths
   * (`save({ wider: true })`), read before the plain one. V8 keeps only the functions a run compiled, and the
   * cache is written once: without it, a path the first run did not take (a command that found a changed file
   * after one that found none) is compiled again on every run. Must start with `prefix`, so writing either file
   * removes the other.
   */
  widerPrefix?: string | undefined;
}

/**
 * Runs a CommonJS file as `require()` would, with V8's compiled code kept in a file of `dir`. Node 22 has
 * `module.enableCompileCache()` for this; Node 20 compiles every module from source on every start.
 *
 * V8 checks the data itself (its version, its flags, a checksum) and rejects what does not fit; the file is
 * compiled from source then, and {@link CachedRun.save} writes it again. A cache that cannot be read or written
 * only costs the compile; the code runs the same either way. The file may not use `import()`: Node 20 has no
 * dynamic-import callback for a script from a code cache (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), so it loads
 * what it needs with `require`.
 */
export function runWithCodeCache({
  file,
  dir,
  prefix,
  version = "",
  widerPrefix,
}: RunWithCodeCacheOptions): CachedRun {
  if (widerPrefix !== undefined && !widerPrefix.startsWith(prefix))
    throw new RangeError(`widerPrefix (${widerPrefix}) must start with prefix (${prefix})`);
  const { size, mtimeMs } = statSync(file);
  // node:v8's cachedDataVersionTag() would name the V8 exactly, but loading node:v8 costs ~4 ms; V8 rejects data
  // from another version or other flags anyway, so the Node version and platform only keep two Nodes apart.
  const node = `${process.version}-${process.platform}-${process.arch}`;
  const suffix = `-${node}.v8cache`;
  const nameWith = (start: string) =>
    join(dir, `${start}${version ? `${version}-` : ""}${size}-${Math.trunc(mtimeMs)}${suffix}`);
  const plainFile = nameWith(prefix);
  const widerFile = widerPrefix === undefined ? undefined : nameWith(widerPrefix);
  let cachedData: Buffer | undefined;
  let usedWider = false;
  for (const candidate of widerFile === undefined ? [plainFile] : [widerFile, plainFile]) {
    try {
      cachedData = readFileSync(candidate);
      usedWider = candidate === widerFile;
      break;
    } catch {
      cachedData = undefined;
    }
  }
  // The CommonJS wrapper, as require() would run the file.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, "utf8")}\n})`;
  const vm = createRequire(import.meta.url)("node:vm") as typeof import("node:vm");
  const script = new vm.Script(source, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as unknown };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  let use: CodeCacheUse = cachedData && !script.cachedDataRejected ? "used" : "written";
  let saved = false;
  return {
    exports: module.exports,
    save: ({ wider = false } = {}) => {
      const widen = wider && widerFile !== undefined && !usedWider;
      if (saved || (use === "used" && !widen)) return use;
      saved = true;
      if (cachedData && use !== "used") use = "rejected";
      else if (use === "used") use = "written";
      const target = widerFile !== undefined && (widen || usedWider) ? widerFile : plainFile;
      if (!writeCache(target, [prefix, suffix], script.createCachedData())) use = "unwritable";
      return use;
    },
  };
}

/**
 * Writes a cache file whole (a temporary file, renamed: a reader never meets half a file, and of two writers the
 * last wins), and removes the folder's other files named `prefix…suffix` (stale ones: an older version's). With
 * the Node version in the suffix, another Node's file stays, so two Nodes do not take turns rewriting it. Returns
 * false when the file could not be written.
 */
export function writeCache(
  cacheFile: string,
  [prefix, suffix]: [string, string],
  data: NodeJS.ArrayBufferView,
): boolean {
  const dir = dirname(cacheFile);
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
      if (entry.startsWith(prefix) && entry.endsWith(suffix) && entry !== basename(cacheFile)) {
        rmSync(join(dir, entry), { force: true });
      }
    }
  } catch {
    // Stale files stay; they are never read.
  }
  return true;
}
