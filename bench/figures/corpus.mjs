// Figure: the CLI on real documents (bench/lib/corpus.mjs), offline: first `index`, unchanged re-`index`,
// `ask` wall time and peak RSS on the small and large corpora; one 1 MB and one 32 MB file; a BM25 query over
// 100k chunks; dense top-k over 100k × 384 float32 vectors against a flat Float32Array loop. ragsynth only.
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { cli } from "../lib/cli-run.mjs";
import { ensureCorpus } from "../lib/corpus.mjs";
import { NOT_BUILT, ragsynthExports } from "../lib/libs.mjs";
import { fmt, fmtRatio, target } from "../lib/report.mjs";
import { createRng } from "../lib/rng.mjs";

const QUESTION = "How do I validate a request body against a JSON schema?";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * `ask` right after one file of a copy of the corpus was edited (a line appended, a new one each sample): the index
 * is written again, beside the answer. When the answer's first byte arrived and when the process ended, medians.
 */
function editedAsks(corpus, runs) {
  const dir = mkdtempSync(join(tmpdir(), "bench-edited-"));
  try {
    const docs = join(dir, "docs");
    cpSync(corpus.dir, docs, { recursive: true });
    const cache = join(dir, "cache");
    cli(["index", docs, "--cache-dir", cache]);
    const edited = join(docs, relative(corpus.dir, corpus.files[0]));
    const samples = [];
    for (let i = 0; i < Math.max(3, Math.min(runs, 5)); i++) {
      appendFileSync(edited, `\nAn edited line, number ${i}.\n`);
      samples.push(
        cli(["ask", docs, "--cache-dir", cache, "-q", QUESTION, "--no-stream"], { firstOutput: true }),
      );
    }
    return {
      answerMs: median(samples.map((sample) => sample.firstOutputMs)),
      exitMs: median(samples.map((sample) => sample.ms)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function dirBytes(dir) {
  const out = spawnSync("du", ["-sb", dir], { encoding: "utf8" });
  return Number(out.stdout.split("\t")[0]);
}

/** first index, unchanged index, ask (median of `runs`), peak RSS, index bytes, for one folder. */
function corpusRow(name, dir, textBytes, runs) {
  const cache = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  try {
    const first = cli(["index", dir, "--cache-dir", cache]);
    const again = [];
    for (let i = 0; i < Math.max(3, Math.min(runs, 5)); i++)
      again.push(cli(["index", dir, "--cache-dir", cache]));
    const asks = [];
    for (let i = 0; i < Math.max(3, Math.min(runs, 5)); i++) {
      asks.push(cli(["ask", dir, "--cache-dir", cache, "-q", QUESTION, "--no-stream"]));
    }
    // The same index asked from inside the folder (`ask .`): it names the files as the first index did, from here.
    const inside = [];
    for (let i = 0; i < Math.max(3, Math.min(runs, 5)); i++) {
      inside.push(cli(["ask", ".", "--cache-dir", cache, "-q", QUESTION, "--no-stream"], { cwd: dir }));
    }
    const insideSources = JSON.parse(
      cli(["ask", ".", "--cache-dir", cache, "-q", QUESTION, "--json"], { cwd: dir }).stdout,
    ).index.sources;
    const ms = (list) => median(list.map((run) => run.ms));
    return {
      firstMs: first.ms,
      unchangedMs: ms(again),
      askMs: ms(asks),
      insideAskMs: ms(inside),
      insideReadAgain: insideSources.added.length + insideSources.changed.length,
      rssMB: Math.max(
        first.rss,
        ...again.map((r) => r.rss),
        ...asks.map((r) => r.rss),
        ...inside.map((r) => r.rss),
      ),
      indexBytes: dirBytes(cache),
      textBytes,
    };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

/** A single file of exactly `bytes` bytes of the large corpus's text (prose and commented code). */
function singleFile(large, bytes, dir) {
  let text = "";
  for (const file of large.files) {
    if (text.length >= bytes) break;
    text += `${readFileSync(file, "utf8")}\n\n`;
  }
  const path = join(dir, `single-${bytes}.md`);
  writeFileSync(
    path,
    Buffer.from(text)
      .subarray(0, bytes)
      .toString("utf8")
      .replace(/\uFFFD$/, ""),
  );
  return path;
}

function randomVectors(count, rng) {
  const dimensions = 384;
  const data = new Float32Array(count * dimensions);
  for (let i = 0; i < data.length; i++) data[i] = rng.next() * 2 - 1;
  const query = Array.from({ length: dimensions }, () => rng.next() * 2 - 1);
  return { count, dimensions, data, query };
}

export async function corpusFigure({ quick, runs }) {
  const title =
    "Real documents, offline (bench/lib/corpus.mjs): the CLI end to end, and retrieval at 100k chunks";
  const headers = ["case", "first index", "unchanged index", "ask (wall)", "peak RSS", "index / text"];
  const lib = await ragsynthExports(["LexicalIndex", "VectorStoreIndex", "TextNode"]);
  if (typeof lib === "string") {
    return {
      id: "corpus",
      title,
      headers,
      rows: [["all", NOT_BUILT, "", "", "", ""]],
      notes: [`ragsynth: ${lib}`],
    };
  }
  const rows = [];
  const targets = [];
  const json = {};
  const small = await ensureCorpus("small");
  const s = corpusRow("small", small.dir, small.bytes, runs);
  json.small = s;
  const cells = (r) => [
    `${fmt(r.firstMs / 1000, 2)} s`,
    `${fmt(r.unchangedMs / 1000, 2)} s`,
    `${fmt(r.askMs / 1000, 2)} s`,
    `${fmt(r.rssMB)} MB`,
    fmtRatio(r.indexBytes / r.textBytes),
  ];
  const insideRow = (name, r) => [
    `${name}: the same ask from inside the folder (\`ask .\`)`,
    "",
    `${r.insideReadAgain} files read again`,
    `${fmt(r.insideAskMs / 1000, 2)} s`,
    "",
    "",
  ];
  rows.push([`small: ${small.files.length} files, ${fmt(small.bytes / 1e6, 2)} MB`, ...cells(s)]);
  rows.push(insideRow("small", s));
  targets.push(
    target("small: first index", "≤ 5 s", `${fmt(s.firstMs / 1000, 2)} s`, s.firstMs <= 5000),
    target("small: unchanged index", "≤ 0.5 s", `${fmt(s.unchangedMs / 1000, 2)} s`, s.unchangedMs <= 500),
    target("small: ask wall", "≤ 1 s", `${fmt(s.askMs / 1000, 2)} s`, s.askMs <= 1000),
    target(
      "small: `ask .` from inside the folder reads no file again",
      "0 files",
      `${s.insideReadAgain} files`,
      s.insideReadAgain === 0,
    ),
    target(
      "small: index size",
      "≤ 1.5× text",
      fmtRatio(s.indexBytes / s.textBytes),
      s.indexBytes <= 1.5 * s.textBytes,
    ),
  );
  if (!quick) {
    const large = await ensureCorpus("large");
    const l = corpusRow("large", large.dir, large.bytes, runs);
    json.large = l;
    rows.push([`large: ${large.files.length} files, ${fmt(large.bytes / 1e6, 2)} MB`, ...cells(l)]);
    rows.push(insideRow("large", l));
    targets.push(
      target("large: first index", "≤ 30 s", `${fmt(l.firstMs / 1000, 2)} s`, l.firstMs <= 30_000),
      target("large: unchanged index", "≤ 2 s", `${fmt(l.unchangedMs / 1000, 2)} s`, l.unchangedMs <= 2000),
      target("large: ask wall", "≤ 1.5 s", `${fmt(l.askMs / 1000, 2)} s`, l.askMs <= 1500),
      target("large: peak RSS", "≤ 500 MB", `${fmt(l.rssMB)} MB`, l.rssMB <= 500),
    );
    const edited = editedAsks(large, runs);
    json.largeEdited = edited;
    rows.push([
      "large: ask right after one file was edited (index written again)",
      "",
      "",
      `answer shown ${fmt(edited.answerMs / 1000, 2)} s, exit ${fmt(edited.exitMs / 1000, 2)} s`,
      "",
      "",
    ]);
    const dir = mkdtempSync(join(tmpdir(), "bench-single-"));
    try {
      const times = {};
      for (const bytes of [1_000_000, 32_000_000]) {
        const folder = join(dir, String(bytes));
        mkdirSync(folder);
        const file = singleFile(large, bytes, folder);
        const run = cli(["index", file, "--cache-dir", join(folder, "cache")]);
        const asked = cli(["ask", file, "--cache-dir", join(folder, "cache"), "-q", QUESTION, "--no-stream"]);
        times[bytes] = { ...run, askMs: asked.ms, askRss: asked.rss };
        rows.push([
          `one file, ${fmt(statSync(file).size / 1e6, 1)} MB`,
          `${fmt(run.ms / 1000, 2)} s`,
          "",
          `${fmt(asked.ms / 1000, 2)} s`,
          `${fmt(Math.max(run.rss, asked.rss))} MB`,
          "",
        ]);
      }
      json.single = { oneMB: times[1_000_000], thirtyTwoMB: times[32_000_000] };
      const ratio = times[32_000_000].ms / times[1_000_000].ms;
      targets.push(
        target(
          "one 1 MB file: index",
          "≤ 3 s",
          `${fmt(times[1_000_000].ms / 1000, 2)} s`,
          times[1_000_000].ms <= 3000,
        ),
        target("one 32 MB file vs 1 MB", "≤ 40×", fmtRatio(ratio), ratio <= 40),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // BM25 over 100k chunks of corpus text (quick: 10k), queried with the question's words.
  const chunkCount = quick ? 10_000 : 100_000;
  const sourceText = readFileSync(small.files[0], "utf8");
  const words = small.files
    .slice(0, 60)
    .map((file) => readFileSync(file, "utf8"))
    .join(" ")
    .split(/\s+/)
    .filter(Boolean);
  const rng = createRng(12);
  const lexical = new lib.LexicalIndex();
  for (let i = 0; i < chunkCount; i++) {
    const start = rng.int(words.length - 60);
    lexical.add(`c${i}`, words.slice(start, start + 60).join(" "));
  }
  const lexicalTimes = [];
  for (let i = 0; i < Math.max(runs, 9); i++) {
    const started = performance.now();
    lexical.search(QUESTION, { topK: 4 });
    lexicalTimes.push(performance.now() - started);
  }
  lexicalTimes.sort((a, b) => a - b);
  const lexicalMs = lexicalTimes[Math.floor(lexicalTimes.length / 2)];
  rows.push([`BM25 query over ${fmt(chunkCount)} chunks`, "", "", `${fmt(lexicalMs, 1)} ms`, "", ""]);
  json.lexical = { chunks: chunkCount, ms: lexicalMs, sample: sourceText.length > 0 };
  if (!quick)
    targets.push(target("BM25 query, 100k chunks", "≤ 50 ms", `${fmt(lexicalMs, 1)} ms`, lexicalMs <= 50));

  // Dense top-k: the index's retriever against a flat Float32Array dot-product loop, same vectors.
  const dense = randomVectors(quick ? 10_000 : 100_000, createRng(34));
  const count = dense.count;
  const vectors = new Map();
  const nodes = [];
  for (let i = 0; i < count; i++) {
    nodes.push(new lib.TextNode({ id: `v${i}`, text: `v${i}` }));
    vectors.set(`v${i}`, dense.data.subarray(i * dense.dimensions, (i + 1) * dense.dimensions));
  }
  const embedder = {
    id: "bench-random-384",
    getTextEmbeddings: async (texts) => texts.map((text) => Array.from(vectors.get(text))),
    getQueryEmbedding: async () => dense.query,
  };
  const index = await lib.VectorStoreIndex.fromNodes(nodes, { embedModel: embedder, embedBatchSize: 4096 });
  const retriever = index.asRetriever({ similarityTopK: 4, retrievalMode: "dense" });
  await retriever.retrieve({ query: "warm-up" });
  const flat = dense.data.subarray(0, count * dense.dimensions);
  const q = Float32Array.from(dense.query);
  const flatLoop = () => {
    const best = [-Infinity, -Infinity, -Infinity, -Infinity];
    for (let row = 0, offset = 0; row < count; row++, offset += dense.dimensions) {
      let dot = 0;
      for (let d = 0; d < dense.dimensions; d++) dot += flat[offset + d] * q[d];
      if (dot > best[3]) {
        best[3] = dot;
        best.sort((a, b) => b - a);
      }
    }
    return best;
  };
  const indexTimes = [];
  const flatTimes = [];
  for (let i = 0; i < Math.max(runs, 9); i++) {
    let started = performance.now();
    await retriever.retrieve({ query: "q" });
    indexTimes.push(performance.now() - started);
    started = performance.now();
    flatLoop();
    flatTimes.push(performance.now() - started);
  }
  const med = (list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const denseMs = med(indexTimes);
  const flatMs = med(flatTimes);
  const heapMB = process.memoryUsage().heapUsed / 2 ** 20;
  rows.push([
    `dense top-4, ${fmt(count)} × ${dense.dimensions} float32`,
    "",
    "",
    `${fmt(denseMs, 1)} ms (flat loop ${fmt(flatMs, 1)} ms, ${fmtRatio(denseMs / flatMs)})`,
    `heap ${fmt(heapMB)} MB`,
    "",
  ]);
  json.dense = { count, dimensions: dense.dimensions, ms: denseMs, flatMs, ratio: denseMs / flatMs, heapMB };
  if (!quick)
    targets.push(
      target("dense top-k vs flat loop", "≤ 1.1×", fmtRatio(denseMs / flatMs), denseMs / flatMs <= 1.1),
    );

  return {
    id: "corpus",
    title,
    headers,
    rows,
    targets,
    notes: [
      `Corpora: ${small.sources.map((source) => `${source.set} (${source.packages.join(", ")})`).join("; ")}; large adds bench/corpora/npm-types. Built by the bench on first use.`,
      `CLI runs are child processes of \`node dist/cli/bin.js\`, started and timed by a small launcher process (not the bench, whose large heap makes every fork slower), with no model configured (BM25 + extractive), cache in a fresh temporary folder; "unchanged index" and "ask" are medians of ${Math.max(3, Math.min(runs, 5))}; ask asks "${QUESTION}". Peak RSS is the largest maxRSS of those processes.`,
      `From inside the folder: the same index (built by the bench with the folder's absolute path, so its files are named from the bench's folder: \`bench/corpora/out/small/…\`), asked \`ask .\` with the folder as working folder; "files read again" counts the added and changed files of one more such ask with \`--json\` (every file, before the index kept its names across working folders).`,
      ...(json.largeEdited
        ? [
            `Edited: a copy of the large corpus, indexed once; before each ask a line is appended to its first file, so the ask splits that file again and rewrites its rows in the index (it exits once they are written). "answer shown" is when the answer's first byte reached stdout, "exit" when the process ended; medians of ${Math.max(3, Math.min(runs, 5))}.`,
          ]
        : []),
      "The single files are the large corpus's text cut to 1 MB and 32 MB (the large corpus's 30.6 MB when shorter): first index, then one ask. Dense: random vectors; the flat loop is one pass of dot products keeping the best 4, the index's retriever scores by cosine over its float32 matrix and selects with LlamaIndex's heap order.",
    ],
    json,
  };
}
