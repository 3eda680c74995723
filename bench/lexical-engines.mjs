// BM25 engines side by side at 100k chunks: ragsynth's own LexicalIndex against MiniSearch 7 with the same
// tokenizer (ragsynth's lexicalTokens), each in a fresh process (`--expose-gc`) so heap figures are its own.
// Build time, heap after build, serialized JSON size, median and p95 query time (top 4 of an OR query).
//   node bench/lexical-engines.mjs [--chunks 100000] [--queries 300]
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DIST_INDEX, ROOT_DIR } from "./lib/libs.mjs";
import { createRng } from "./lib/rng.mjs";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const CHUNKS = arg("chunks", 100_000);
const QUERIES = arg("queries", 300);
const WORDS_PER_CHUNK = 90;
const VOCABULARY = 60_000;

/** Seeded Zipf-like text: a vocabulary of made-up words, word i drawn with weight 1/(i+1). */
function corpus(seed) {
  const rng = createRng(seed);
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const vocabulary = Array.from({ length: VOCABULARY }, (_, i) => {
    let word = "";
    const length = 3 + rng.int(8);
    for (let j = 0; j < length; j++) word += letters[rng.int(26)];
    return `${word}${i % 7 === 0 ? i : ""}`;
  });
  const cumulative = new Float64Array(VOCABULARY);
  let total = 0;
  for (let i = 0; i < VOCABULARY; i++) cumulative[i] = total += 1 / (i + 1);
  const draw = () => {
    const target = rng.next() * total;
    let low = 0;
    let high = VOCABULARY - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return vocabulary[low];
  };
  const chunks = Array.from({ length: CHUNKS }, () =>
    Array.from({ length: WORDS_PER_CHUNK }, draw).join(" "),
  );
  const queries = Array.from({ length: QUERIES }, () =>
    Array.from({ length: 2 + rng.int(4) }, draw).join(" "),
  );
  return { chunks, queries };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p95 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)];

async function measure(engine) {
  // lexicalTokens is in ragsynth/extend (for people who build their own retriever), LexicalIndex in the root.
  const extend = await import(pathToFileURL(join(ROOT_DIR, "dist", "extend", "index.js")).href);
  const lib = { ...(await import(pathToFileURL(DIST_INDEX).href)), lexicalTokens: extend.lexicalTokens };
  const { chunks, queries } = corpus(12);
  globalThis.gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let index;
  let search;
  let serialize;
  const started = performance.now();
  if (engine === "ragsynth") {
    index = new lib.LexicalIndex();
    for (const [id, text] of chunks.entries()) index.add(String(id), text);
    search = (query) => index.search(query, { topK: 4 });
    serialize = () => JSON.stringify(index);
  } else {
    const { default: MiniSearch } = await import("minisearch");
    index = new MiniSearch({
      fields: ["text"],
      tokenize: (text) => lib.lexicalTokens(text),
      processTerm: (term) => term,
    });
    for (const [id, text] of chunks.entries()) index.add({ id: String(id), text });
    search = (query) => index.search(query).slice(0, 4);
    serialize = () => JSON.stringify(index);
  }
  const buildMs = performance.now() - started;
  globalThis.gc();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  for (const query of queries.slice(0, 20)) search(query);
  const times = queries.map((query) => {
    const t = performance.now();
    search(query);
    return performance.now() - t;
  });
  const json = serialize();
  const loadStarted = performance.now();
  if (engine === "ragsynth") lib.LexicalIndex.fromJSON(JSON.parse(json));
  else
    (await import("minisearch")).default.loadJSON(json, {
      fields: ["text"],
      tokenize: (t) => lib.lexicalTokens(t),
      processTerm: (t) => t,
    });
  const loadMs = performance.now() - loadStarted;
  const textMb = chunks.reduce((sum, text) => sum + text.length, 0) / 1e6;
  return {
    engine,
    buildMs,
    heapMb,
    jsonMb: json.length / 1e6,
    loadMs,
    medianMs: median(times),
    p95Ms: p95(times),
    textMb,
  };
}

if (process.argv[2] === "--child") {
  process.stdout.write(JSON.stringify(await measure(process.argv[3])));
} else {
  const rows = ["ragsynth", "minisearch"].map((engine) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ["--expose-gc", fileURLToPath(import.meta.url), "--child", engine, ...process.argv.slice(2)],
        {
          encoding: "utf8",
          maxBuffer: 1 << 20,
        },
      ),
    ),
  );
  const text = rows[0].textMb.toFixed(1);
  console.log(
    `BM25 over ${CHUNKS.toLocaleString("en-US")} chunks of ${WORDS_PER_CHUNK} Zipf words (${text} MB), ${QUERIES} queries of 2–5 words, top 4, same tokenizer\n`,
  );
  console.log("| engine | build s | heap MB | JSON MB | load s | query median ms | query p95 ms |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.engine} | ${(r.buildMs / 1000).toFixed(2)} | ${r.heapMb.toFixed(0)} | ${r.jsonMb.toFixed(1)} | ${(r.loadMs / 1000).toFixed(2)} | ${r.medianMs.toFixed(2)} | ${r.p95Ms.toFixed(2)} |`,
    );
  }
}
