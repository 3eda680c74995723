// Figure: the index at scale (issue 28). `ask` on an unchanged index and right after one file was edited, at 2 MB,
// 30 MB and 300 MB of real text (the small corpus, the large corpus, and the large corpus ten times over, each copy
// with its own per-copy words so terms and postings grow as real text would; ~93k chunks at the default chunk size,
// short of issue 28's 10^6), through the built CLI as
// a user runs it, offline. Also the first index's throughput, the index's size beside the text's, the peak RSS of
// the asks, and the retrieval time the ask reports (BM25 over the store plus reading the top chunks).

import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { BIN, cli } from "../lib/cli-run.mjs";
import { ensureCorpus } from "../lib/corpus.mjs";
import { DIST_INDEX, NOT_BUILT } from "../lib/libs.mjs";
import { fmt, fmtRatio, target } from "../lib/report.mjs";

export const QUESTION = "How do I validate a request body against a JSON schema?";
const MILLION_CHUNK_SIZE = 100;
const MILLION = `large10 at --chunk-size ${MILLION_CHUNK_SIZE}`;
const NESTED = "large10, nested";
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * BM25 alone over the store, as the library runs it: `runs` fresh processes each load the index at `location` (a
 * cache folder or a PostgreSQL URL) and retrieve the question's top 4 lexically, once (the first query: page cache
 * warm from the asks, code cold) and then `runs` times more. The first query is the median of the processes' first
 * ones (one process's alone moved by a fifth from run to run), warm the median of all the others. No token
 * counting, reading of files or answering: the query itself.
 */
function bm25Query(location, runs) {
  const script = `
    const lib = await import(${JSON.stringify(pathToFileURL(DIST_INDEX).href)});
    const index = await lib.VectorStoreIndex.load(${JSON.stringify(location)}, { embedModel: new lib.HashingEmbedder() });
    const retriever = index.asRetriever({ similarityTopK: 4, retrievalMode: "lexical" });
    const times = [];
    for (let run = 0; run <= ${runs}; run++) {
      const started = performance.now();
      await retriever.retrieve({ query: ${JSON.stringify(QUESTION)} });
      times.push(performance.now() - started);
    }
    console.log(JSON.stringify(times));`;
  const firsts = [];
  const warm = [];
  for (let run = 0; run < runs; run++) {
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    if (out.status !== 0) throw new Error(`the BM25 query script failed: ${out.stderr.slice(-400)}`);
    const [first, ...rest] = JSON.parse(out.stdout);
    firsts.push(first);
    warm.push(...rest);
  }
  return { firstMs: median(firsts), warmMs: median(warm) };
}

function dirBytes(dir) {
  return Number(spawnSync("du", ["-sb", dir], { encoding: "utf8" }).stdout.split("\t")[0]);
}

/**
 * The large corpus `copies` times in `dir`, each copy in its own folder; in copies after the first every 50th word
 * of four letters or more gets the copy's suffix, so each copy adds its own terms, not only longer postings.
 * `nested`: each file in the folders its name flattened (`@fastify__ajv-compiler__README.md` goes to
 * `@fastify/ajv-compiler/README.md`), as the packages' docs lie in node_modules: a tree of folders to walk.
 */
export function repeatedCorpus(large, copies, dir, { nested = false } = {}) {
  let bytes = 0;
  const files = [];
  const folders = new Set();
  for (let copy = 0; copy < copies; copy++) {
    for (const file of large.files) {
      let count = 0;
      const text = readFileSync(file, "utf8").replace(/[A-Za-z]{4,}/g, (word) =>
        copy > 0 && ++count % 50 === 0 ? `${word}c${copy}` : word,
      );
      const name = relative(large.dir, file);
      const path = join(dir, `copy${copy}`, nested ? name.split("__").join("/") : name);
      for (let folder = dirname(path); folder.length > dir.length; folder = dirname(folder))
        folders.add(folder);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      bytes += Buffer.byteLength(text);
      files.push(path);
    }
  }
  return { dir, files, bytes, folders: folders.size };
}

/** Where `measure` keeps an index: a fresh cache folder (the default), or a PostgreSQL store (postgres.mjs). */
function freshCacheFolder() {
  const cache = mkdtempSync(join(tmpdir(), "bench-scale-cache-"));
  return {
    args: ["--cache-dir", cache],
    location: cache,
    bytes: () => dirBytes(cache),
    dispose: () => rmSync(cache, { recursive: true, force: true }),
  };
}

/**
 * First index, unchanged asks and asks right after an edit, on one folder (its index in `place`, a fresh cache
 * folder by default); `flags` go to every command (`--chunk-size`).
 */
export function measure(corpus, runs, flags = [], place = freshCacheFolder()) {
  try {
    const first = cli(["index", corpus.dir, ...place.args, "--json", ...flags]);
    const { chunks, files: filesRead } = JSON.parse(first.stdout);
    const indexBytes = place.bytes();
    // The timed asks print what a user's print (text, the default). One more unchanged ask per round prints --json:
    // its `timings.retrieveMs`, and its own time (its JSON lists every file of the folder).
    const ask = (more = []) =>
      cli(["ask", corpus.dir, ...place.args, "-q", QUESTION, "--no-stream", ...flags, ...more]);
    const askJson = () => {
      const run = ask(["--json"]);
      return { ...run, retrieveMs: JSON.parse(run.stdout).timings?.retrieveMs ?? Number.NaN };
    };
    ask(); // warm: the V8 code cache and the page cache, as a user's second ask
    askJson();
    // Each round asks once in each way, the ways in an order turned by one each round: drift of the machine over
    // the minutes of a size (seen to move the same ask by a third) falls on every way alike, as the medians of
    // blocks of 5 asks of one way each did not.
    const unchanged = [];
    // The index as it is (`--no-refresh`): no file listed or examined, the store's own cost.
    const asIs = [];
    const edited = [];
    // Every file given a new time, its bytes kept (a checkout, a copy, another machine's files): each such ask reads
    // and hashes every file, and finds none changed.
    const touched = [];
    const asJson = [];
    const ways = [
      () => {
        unchanged.push(ask());
        asJson.push(askJson());
      },
      () => asIs.push(ask(["--no-refresh"])),
      (round) => {
        appendFileSync(
          corpus.files[(round * 7) % corpus.files.length],
          `\nEdited in round ${round}: zebra${round} banner.\n`,
        );
        edited.push(ask());
      },
      (round) => {
        const when = new Date(Date.now() + (round + 1) * 3_600_000);
        for (const file of corpus.files) utimesSync(file, when, when);
        touched.push(ask());
      },
    ];
    for (let round = 0; round < runs; round++)
      for (let turn = 0; turn < ways.length; turn++) ways[(round + turn) % ways.length](round);
    const ms = (list, key = "ms") => median(list.map((run) => run[key]));
    const bm25 = bm25Query(place.location, runs);
    return {
      textBytes: corpus.bytes,
      files: corpus.files.length,
      // Fewer when the default rules pass some over (a folder named node_modules in the nested copy).
      filesRead,
      chunks,
      firstIndexMs: first.ms,
      indexRss: first.rss,
      indexBytes,
      unchangedMs: ms(unchanged),
      asIsMs: ms(asIs),
      editedMs: ms(edited),
      touchedMs: ms(touched),
      retrieveMs: ms(asJson, "retrieveMs"),
      jsonMs: ms(asJson),
      bm25FirstMs: bm25.firstMs,
      bm25WarmMs: bm25.warmMs,
      askRss: Math.max(...[...unchanged, ...asJson, ...asIs, ...edited, ...touched].map((run) => run.rss)),
      // Every ask's wall time, in the order asked, for the JSON: a median's spread is there to see.
      samplesMs: {
        unchanged: unchanged.map((run) => Math.round(run.ms)),
        json: asJson.map((run) => Math.round(run.ms)),
        asIs: asIs.map((run) => Math.round(run.ms)),
        edited: edited.map((run) => Math.round(run.ms)),
        touched: touched.map((run) => Math.round(run.ms)),
      },
    };
  } finally {
    place.dispose();
  }
}

/** The columns of {@link measuredRow}. */
export const MEASURED_HEADERS = [
  "corpus",
  "text",
  "chunks",
  "first index",
  "index / text",
  "ask unchanged",
  "ask --no-refresh",
  "ask after an edit",
  "ask after every file was touched",
  "retrieval in the ask",
  "BM25 query, first / warm",
  "ask peak RSS",
];

/** One table row of what {@link measure} returned, under `label` (the postgres figure's rows too). */
export function measuredRow(label, r) {
  return [
    label,
    `${fmt(r.textBytes / 1e6, 1)} MB`,
    fmt(r.chunks),
    `${fmt(r.firstIndexMs / 1000, 1)} s (${fmt(r.textBytes / 1e6 / (r.firstIndexMs / 1000), 1)} MB/s, ${fmt(r.indexRss)} MB RSS)`,
    fmtRatio(r.indexBytes / r.textBytes),
    `${fmt(r.unchangedMs / 1000, 2)} s`,
    r.asIsMs === undefined ? "—" : `${fmt(r.asIsMs / 1000, 2)} s`,
    `${fmt(r.editedMs / 1000, 2)} s`,
    `${fmt(r.touchedMs / 1000, 2)} s`,
    `${fmt(r.retrieveMs)} ms`,
    `${fmt(r.bm25FirstMs)} / ${fmt(r.bm25WarmMs)} ms`,
    `${fmt(r.askRss)} MB`,
  ];
}

export async function scaleFigure({ quick, runs }) {
  const title =
    "The index at scale: ask unchanged and right after an edit, from 2 MB to 300 MB of text, offline";
  const headers = MEASURED_HEADERS;
  if (!existsSync(BIN)) return { id: "scale", title, headers, rows: [["all", NOT_BUILT]], notes: [] };
  const work = mkdtempSync(join(tmpdir(), "bench-scale-"));
  const results = {};
  try {
    // Copies of the corpora: the edits below must not touch the shared ones.
    const copy = (corpus, name) => repeatedCorpus(corpus, 1, join(work, name));
    const small = await ensureCorpus("small");
    results.small = measure(copy(small, "small"), runs);
    if (!quick) {
      const large = await ensureCorpus("large");
      results.large = measure(copy(large, "large"), runs);
      rmSync(join(work, "large"), { recursive: true, force: true });
      const large10 = repeatedCorpus(large, 10, join(work, "large10"));
      results.large10 = measure(large10, runs);
      // The same files in the folders of node_modules they came from: the walk lists each folder.
      const nested = repeatedCorpus(large, 10, join(work, "large10-nested"), { nested: true });
      results[NESTED] = { ...measure(nested, runs), folders: nested.folders };
      rmSync(nested.dir, { recursive: true, force: true });
      // The same text in chunks of 100 tokens: past 10^6 chunks (issue 28's largest size), postings 10x as many.
      results[MILLION] = measure(large10, runs, ["--chunk-size", String(MILLION_CHUNK_SIZE)]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const rows = Object.entries(results).map(([name, r]) =>
    measuredRow(
      name === MILLION
        ? name
        : `${name}: ${fmt(r.files)} files${r.filesRead < r.files ? ` (${fmt(r.filesRead)} read)` : ""}${name === NESTED ? ` in ${fmt(r.folders)} folders` : ""}`,
      r,
    ),
  );
  const sizes = Object.values(results);
  const smallest = sizes[0];
  const largest = sizes.at(-1);
  // Throughput and index size are the default chunk size's: 100-token chunks pay each chunk's fixed cost 10x.
  const defaults = Object.entries(results)
    .filter(([name]) => name !== MILLION)
    .map(([, r]) => r);
  const targets = [];
  const asIsSpread = largest.asIsMs / smallest.asIsMs;
  if (!quick) {
    const spread = largest.unchangedMs / smallest.unchangedMs;
    // The largest size is not always the slowest ask (large10 at the default chunk size answers from 1,000-token
    // chunks, slower to quote than 100-token ones): the slowest against the fastest, whatever their sizes.
    const asks = sizes.map((r) => r.unchangedMs);
    const widest = Math.max(...asks) / Math.min(...asks);
    const worstEdit = Math.max(...sizes.map((r) => r.editedMs / r.unchangedMs));
    const slowestIndex = Math.min(
      ...defaults.slice(1).map((r) => r.textBytes / 1e6 / (r.firstIndexMs / 1000)),
    );
    const biggest = Math.max(...defaults.map((r) => r.indexBytes / r.textBytes));
    const peak = Math.max(...sizes.map((r) => r.askRss));
    targets.push(
      target("scale: largest ask vs smallest", "≤ 1.3×", fmtRatio(spread), spread <= 1.3),
      target("scale: slowest ask vs fastest, any sizes", "≤ 1.3×", fmtRatio(widest), widest <= 1.3),
      target(
        "scale: largest ask",
        "≤ 1 s",
        `${fmt(largest.unchangedMs / 1000, 2)} s`,
        largest.unchangedMs <= 1000,
      ),
      target("scale: chunks in the largest", "≥ 10^6", fmt(largest.chunks), largest.chunks >= 1_000_000),
      target("scale: ask peak RSS, every size", "≤ 250 MB", `${fmt(peak)} MB`, peak <= 250),
      target(
        "scale: ask after an edit vs unchanged, worst size",
        "≤ 1.2×",
        fmtRatio(worstEdit),
        worstEdit <= 1.2,
      ),
      target(
        "scale: first index throughput, 30 and 300 MB",
        "≥ 5 MB/s",
        `${fmt(slowestIndex, 1)} MB/s`,
        slowestIndex >= 5,
      ),
      target(
        "scale: index size, every size (default chunks)",
        "≤ 1.5× text",
        fmtRatio(biggest),
        biggest <= 1.5,
      ),
      target(
        "scale: a BM25 query over the store at the largest (first query)",
        "≤ 50 ms",
        `${fmt(largest.bm25FirstMs)} ms (warm ${fmt(largest.bm25WarmMs)} ms)`,
        largest.bm25FirstMs <= 50,
      ),
    );
  }
  const jsonRange = Object.values(results)
    .map((r) => `${fmt(r.jsonMs / 1000, 2)} s`)
    .join(", ");
  return {
    id: "scale",
    title,
    headers,
    rows,
    targets,
    notes: [
      `\`ragsynth index <folder> --cache-dir <fresh> --json\`, then \`ragsynth ask <folder> --cache-dir … -q "${QUESTION}" --no-stream\` once to warm (and once with \`--json\`), then ${runs} rounds, each asking once in each of four ways, in an order turned by one each round (so the machine's drift over a size's minutes falls on every way alike): unchanged; with \`--no-refresh\` (the index as it is: no file of the folder listed or examined; the largest ${fmtRatio(asIsSpread)} the smallest); right after appending a line to another file (the edited file re-indexed in place, inside the ask); right after every file of the folder was given a new modification time, its bytes kept (as a checkout or a copy leaves them: each file read and hashed, none parsed or split); medians of wall time per way; the asks print text, as a user's do (the default output); the built CLI, started and timed by a small launcher, no model configured (BM25 + extractive answerer). After each unchanged ask, one more with \`--json\` (not in the columns; its JSON lists every file of the folder: ${jsonRange}) gives "retrieval in the ask": the ask's own \`timings.retrieveMs\` (query analysis, BM25 over the store's postings, reading the top chunks, and counting their tokens for the retrieve event: the process's first token count, which loads the piece-count table). "BM25 query" is the query alone, through the library in ${runs} fresh processes on the same index (\`VectorStoreIndex.load\`, \`asRetriever({ retrievalMode: "lexical" })\`), each querying ${runs + 1} times: the median of their first queries, then the median of the rest. large10 is the large corpus ten times, every 50th word of each later copy given the copy's suffix (the corpus's files lie flat in one folder per copy); "${NESTED}" is the same files in the folders of node_modules their names were flattened from (those under a nested \`node_modules\` folder are passed over by the default rules, as in a user's folder); "${MILLION}" is the same folder indexed and asked with \`--chunk-size ${MILLION_CHUNK_SIZE}\` (overlap 20), the size that passes 10^6 chunks: the largest size of the targets. Throughput and index size are targets of the default chunk size (a 100-token chunk pays its fixed costs, metadata and row, ten times as often). Peak RSS is the largest maxRSS of the asks.`,
    ],
    json: results,
  };
}
