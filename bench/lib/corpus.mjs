// Real-document corpora for the bench, rebuilt by the bench itself on a fresh machine from pinned npm
// packages (bench/corpora/<set>/package.json + package-lock.json, installed with `npm ci --ignore-scripts`).
//
//   small: every Markdown file (README, CHANGELOG, docs/…) of bench/corpora/npm-docs and its locked
//          dependencies, LICENSE files left out.
//   large: the small corpus plus the commented type declarations (.d.ts) of bench/corpora/npm-types:
//          typescript's lib/, @types/node, then aws-sdk v2's clients/ in name order up to LARGE_TARGET_BYTES.
//
// Files are copied into one flat folder per corpus (bench/corpora/out/<name>/, git-ignored) under stable
// names: the path inside node_modules with "/" replaced by "__". Declarations get a ".txt" ending so that
// `ragsynth ask <dir>` reads them with its default file endings. A manifest beside the folder (out/<name>.json) records the
// lock files' hash; a second call with unchanged locks returns at once without touching the disk.
//
// `node bench/lib/corpus.mjs [small|large]` builds and prints the figures, including the cl100k token
// count and distinct pre-tokenizer pieces of the first 1M tokens (a tokenizer benchmark's input).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const CORPORA_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "corpora");
const OUT_DIR = join(CORPORA_DIR, "out");
/** The large corpus stops adding aws-sdk declarations once it holds this many bytes. */
export const LARGE_TARGET_BYTES = 30_000_000;

const isMarkdown = (path) => /\.md$/i.test(path) && !/(^|\/)licen[cs]e[^/]*$/i.test(path);
const isDeclaration = (path) => path.endsWith(".d.ts");

/** The package sets each corpus is made of, in order. `files(list)` picks and orders node_modules paths. */
const CORPORA = {
  small: [{ set: "npm-docs", files: (paths) => paths.filter(isMarkdown) }],
  large: [
    { set: "npm-docs", files: (paths) => paths.filter(isMarkdown) },
    {
      set: "npm-types",
      files: (paths) => [
        ...paths.filter((p) => p.startsWith("typescript/lib/") && isDeclaration(p)),
        ...paths.filter((p) => p.startsWith("@types/node/") && isDeclaration(p)),
        ...paths.filter((p) => p.startsWith("aws-sdk/clients/") && isDeclaration(p)),
      ],
      targetBytes: LARGE_TARGET_BYTES,
    },
  ],
};

export const CORPUS_NAMES = Object.keys(CORPORA);

function walk(dir, base = dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, base, out);
    else if (entry.isFile()) out.push(relative(base, path).split("\\").join("/"));
  }
  return out;
}

function lockHash(sets) {
  const hash = createHash("sha256");
  for (const set of sets) hash.update(readFileSync(join(CORPORA_DIR, set, "package-lock.json")));
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  return hash.digest("hex").slice(0, 16);
}

/** `npm ci --ignore-scripts` in bench/corpora/<set> unless its node_modules already matches the lock. */
function installSet(set, log) {
  const dir = join(CORPORA_DIR, set);
  const installed = join(dir, "node_modules", ".package-lock.json");
  if (existsSync(installed)) {
    const want = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")).packages ?? {};
    const have = JSON.parse(readFileSync(installed, "utf8")).packages ?? {};
    const same = Object.keys(want).every((key) => key === "" || have[key]?.version === want[key]?.version);
    if (same) return;
  }
  log(`corpus: installing bench/corpora/${set} (npm ci --ignore-scripts)…`);
  const result = spawnSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"], {
    cwd: dir,
    stdio: ["ignore", 2, 2],
  });
  if (result.status !== 0) {
    throw new Error(`corpus: \`npm ci\` failed in bench/corpora/${set} (exit ${result.status}).`);
  }
}

/** Pinned top-level packages of a set, with the versions its lock resolved. */
function setSources(set) {
  const lock = JSON.parse(readFileSync(join(CORPORA_DIR, set, "package-lock.json"), "utf8"));
  const direct = Object.keys(lock.packages[""].dependencies ?? {});
  const locked = Object.keys(lock.packages).filter((key) => key.startsWith("node_modules/")).length;
  return {
    set,
    packages: direct.map((name) => `${name}@${lock.packages[`node_modules/${name}`].version}`),
    lockedPackages: locked,
  };
}

function readManifest(dir) {
  try {
    return JSON.parse(readFileSync(`${dir}.json`, "utf8"));
  } catch {
    return null;
  }
}

/**
 * Builds (first call) or finds (later calls) a real-document corpus.
 * @param {"small"|"large"} name
 * @param {{ log?: (line: string) => void }} [options] progress lines (stderr by default)
 * @returns {Promise<{ name: string, dir: string, files: string[], bytes: number, sources: object[] }>}
 *   `files` are absolute paths inside `dir`, in corpus order.
 */
export async function ensureCorpus(name, { log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const parts = CORPORA[name];
  if (!parts) throw new Error(`Unknown corpus ${name}; expected one of ${CORPUS_NAMES.join(", ")}.`);
  const dir = join(OUT_DIR, name);
  const sets = [...new Set(parts.map((part) => part.set))];
  const key = lockHash(sets);
  const manifest = readManifest(dir);
  if (manifest?.key === key && manifest.files.every((file) => existsSync(join(dir, file)))) {
    return {
      name,
      dir,
      files: manifest.files.map((f) => join(dir, f)),
      bytes: manifest.bytes,
      sources: manifest.sources,
    };
  }
  for (const set of sets) installSet(set, log);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = [];
  let bytes = 0;
  for (const part of parts) {
    const modules = join(CORPORA_DIR, part.set, "node_modules");
    const all = walk(modules)
      .filter((p) => !p.startsWith(".") && !p.includes("/.bin/"))
      .sort();
    for (const path of part.files(all)) {
      if (part.targetBytes !== undefined && bytes >= part.targetBytes) break;
      const flat = path.split("/").join("__") + (isMarkdown(path) ? "" : ".txt");
      copyFileSync(join(modules, path), join(dir, flat));
      bytes += readFileSync(join(dir, flat)).length;
      files.push(flat);
    }
  }
  const sources = sets.map(setSources);
  writeFileSync(`${dir}.json`, `${JSON.stringify({ key, name, bytes, sources, files }, null, 1)}\n`);
  log(`corpus: built ${name}: ${files.length} files, ${(bytes / 1e6).toFixed(2)} MB in ${dir}`);
  return { name, dir, files: files.map((f) => join(dir, f)), bytes, sources };
}

/**
 * cl100k figures of a corpus's first `maxTokens` tokens (files in corpus order, whole files): tokens,
 * pre-tokenizer pieces, distinct pieces, and distinct pieces per 1M tokens.
 */
export async function corpusTokenStats(corpus, { maxTokens = 1_000_000 } = {}) {
  const { cl100kCount } = await import("./tokens.mjs");
  const { CL100K_TOKEN_SPLIT_REGEX } = await import("gpt-tokenizer-4/encodingParams/constants");
  let tokens = 0;
  let pieces = 0;
  let bytes = 0;
  let files = 0;
  const distinct = new Set();
  for (const file of corpus.files) {
    if (tokens >= maxTokens) break;
    const text = readFileSync(file, "utf8");
    // Counted per line: the tokenizer is quadratic on long runs without spaces, and no piece spans lines.
    for (const line of text.split("\n")) {
      tokens += cl100kCount(`${line}\n`);
      for (const match of `${line}\n`.matchAll(new RegExp(CL100K_TOKEN_SPLIT_REGEX))) {
        pieces++;
        distinct.add(match[0]);
      }
    }
    bytes += Buffer.byteLength(text);
    files++;
  }
  return {
    files,
    bytes,
    tokens,
    pieces,
    distinctPieces: distinct.size,
    distinctPer1M: (distinct.size * 1e6) / tokens,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.length > 2 ? process.argv.slice(2) : CORPUS_NAMES;
  for (const name of names) {
    const started = performance.now();
    const corpus = await ensureCorpus(name);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${name}: ${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(2)} MB, ${corpus.dir} (${seconds} s)`,
    );
    for (const source of corpus.sources) {
      console.log(
        `  ${source.set}: ${source.packages.join(", ")} (${source.lockedPackages} locked packages)`,
      );
    }
    const stats = await corpusTokenStats(corpus);
    console.log(
      `  first ${stats.tokens.toLocaleString("en")} cl100k tokens (${stats.files} files, ${(stats.bytes / 1e6).toFixed(2)} MB): ` +
        `${stats.distinctPieces.toLocaleString("en")} distinct pre-tokenizer pieces of ${stats.pieces.toLocaleString("en")} ` +
        `(${Math.round(stats.distinctPer1M).toLocaleString("en")} per 1M tokens)`,
    );
  }
}
