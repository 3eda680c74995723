// Loading the two libraries. ragsynth is imported from its BUILT output (dist/), as users get it;
// llamaindex from bench/node_modules. Anything ragsynth does not export yet makes its rows "n/a".
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { getEncoding } from "js-tiktoken";
import { cl100kDecode, cl100kEncode } from "./tokens.mjs";

export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT_DIR = join(BENCH_DIR, "..");
export const DIST_INDEX = join(ROOT_DIR, "dist", "index.js");
export const DIST_TESTING = join(ROOT_DIR, "dist", "testing", "index.js");

export const NOT_BUILT = "n/a (not built yet)";

let ragsynthPromise;

/** Exports found only in a folder's index (not yet re-exported from the root), reported by run.mjs. */
export const rootExportGaps = new Set();

/** `{ core, testing, folders, error }`: ragsynth's root, `./testing` and per-folder modules (or `null`). */
export function loadRagsynth() {
  ragsynthPromise ??= (async () => {
    const result = { core: null, testing: null, folders: null, error: null };
    if (!existsSync(DIST_INDEX)) {
      result.error = "dist/index.js is missing (run `npm run build`)";
      return result;
    }
    try {
      result.core = await import(pathToFileURL(DIST_INDEX).href);
    } catch (error) {
      result.error = `importing dist/index.js failed: ${error.message.split("\n")[0]}`;
    }
    if (existsSync(DIST_TESTING)) {
      try {
        result.testing = await import(pathToFileURL(DIST_TESTING).href);
      } catch {
        // ./testing is optional for the figures that need only the core.
      }
    }
    // While the library is being written, a folder may exist before the root re-exports it, or one
    // broken folder may break the root import; the figures can still use the folders' own index files.
    result.folders = await importFolders();
    return result;
  })();
  return ragsynthPromise;
}

async function importFolders() {
  const folders = {};
  const distDir = dirname(DIST_INDEX);
  for (const entry of readdirSync(distDir, { withFileTypes: true })) {
    const index = join(distDir, entry.name, "index.js");
    if (!entry.isDirectory() || entry.name === "cli" || !existsSync(index)) continue;
    try {
      folders[entry.name] = await import(pathToFileURL(index).href);
    } catch {
      // This folder is not importable yet; its exports stay missing.
    }
  }
  return folders;
}

/**
 * The ragsynth exports a figure needs, or a string saying why they are not there. `names` are looked
 * up in the root module, then `./testing`, then (recorded in {@link rootExportGaps}) the folders.
 */
export async function ragsynthExports(names) {
  const { core, testing, folders, error } = await loadRagsynth();
  const found = {};
  const missing = [];
  for (const name of names) {
    let value = core?.[name] ?? testing?.[name];
    if (value === undefined) {
      for (const [folder, module] of Object.entries(folders ?? {})) {
        if (module[name] !== undefined) {
          value = module[name];
          rootExportGaps.add(`${name} (dist/${folder}/index.js)`);
          break;
        }
      }
    }
    if (value === undefined) missing.push(name);
    else found[name] = value;
  }
  if (missing.length > 0) {
    return `${NOT_BUILT}: ragsynth does not export ${missing.join(", ")}${error ? ` (${error})` : ""}`;
  }
  return found;
}

let peerPromise;

/** The peer, `llamaindex` (which pins `@llamaindex/core`). */
export function loadPeer() {
  peerPromise ??= import("llamaindex");
  return peerPromise;
}

let jsTiktoken;

/**
 * Tokenizers in the peer's `{ encode, decode }` shape:
 * - `js-tiktoken`: what `@llamaindex/env` falls back to when `gpt-tokenizer` is not installed, i.e.
 *   the default of a plain `npm install llamaindex` (its optional peer `gpt-tokenizer` is not installed);
 * - `gpt-tokenizer`: gpt-tokenizer 4 cl100k_base plugged in through the `tokenizer` option, the same
 *   tokenizer ragsynth and the bound use.
 */
export function peerTokenizers() {
  jsTiktoken ??= getEncoding("cl100k_base");
  const encoding = jsTiktoken;
  return {
    "js-tiktoken": {
      encode: (text) => new Uint32Array(encoding.encode(text)),
      decode: (tokens) => encoding.decode(Array.from(tokens)),
    },
    "gpt-tokenizer": {
      encode: (text) => cl100kEncode(text),
      decode: (tokens) => cl100kDecode(Array.from(tokens)),
    },
  };
}
