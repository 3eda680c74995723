// Child process of the dense figure (bench/figures/dense.mjs) (issue 28: "dense top-10 over 10^6 × 384"). Two commands:
//   build <cacheDir> <corpus.json> <questions.json> <count>  an index of `count` distinct chunks of real text with stored 384-d vectors
//     (projected-embedder.mjs), built through the library (`fromDocumentsCached`), then recall@10 of its dense search
//     against an exact search over the same vectors, for every question; prints JSON.
//   query <cacheDir> <question> <runs>  a fresh process: loads the index and times its dense retriever (top 10).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { DIST_INDEX } from "./libs.mjs";
import { projectedEmbedder } from "./projected-embedder.mjs";

const PIECE_CHARS = 300;
const PER_DOCUMENT = 1000;
const SEPARATOR = "\n\u001e\n";

const lib = await import(pathToFileURL(DIST_INDEX).href);
const [command, cacheDir, ...rest] = process.argv.slice(2);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

if (command === "build") {
  const [corpusFile, questionsFile, count] = rest;
  const VECTORS = Number(count);
  const { files } = JSON.parse(readFileSync(corpusFile, "utf8"));
  const questions = JSON.parse(readFileSync(questionsFile, "utf8"));
  // The large corpus's text again and again, every 50th word of each later copy given the copy's suffix (as large10
  // is), cut at spaces into pieces of about PIECE_CHARS characters, until there are VECTORS distinct pieces.
  const pieces = [];
  const seen = new Set();
  for (let copy = 0; pieces.length < VECTORS && copy < 100; copy++) {
    for (const file of files) {
      let count = 0;
      const text = readFileSync(file, "utf8").replace(/[A-Za-z]{4,}/g, (word) =>
        copy > 0 && ++count % 50 === 0 ? `${word}c${copy}` : word,
      );
      for (let at = 0; at < text.length && pieces.length < VECTORS; ) {
        let end = text.indexOf(" ", at + PIECE_CHARS);
        if (end === -1) end = text.length;
        const piece = text.slice(at, end).trim();
        if (piece !== "" && !seen.has(piece)) {
          seen.add(piece);
          pieces.push(piece);
        }
        at = end + 1;
      }
      if (pieces.length >= VECTORS) break;
    }
  }
  seen.clear();
  const documents = [];
  for (let start = 0; start < pieces.length; start += PER_DOCUMENT)
    documents.push(
      new lib.TextNode({
        id: `part-${documents.length}`,
        text: pieces.slice(start, start + PER_DOCUMENT).join(SEPARATOR),
      }),
    );
  // Each piece one chunk: a splitter that cuts at the separator only.
  const splitter = {
    id: "bench-pieces",
    getNodesFromDocuments: (docs) =>
      docs.flatMap((doc) =>
        doc.text
          .split(SEPARATOR)
          .map(
            (text, index) =>
              new lib.TextNode({ id: `${doc.id}#${index}`, text, metadata: { file_path: doc.id } }),
          ),
      ),
  };
  // The vectors the build embeds, kept here for the exact search (by text: equal texts have equal vectors).
  const embedder = projectedEmbedder(lib);
  const dimensions = embedder.dimensions;
  let vectors = new Float32Array(VECTORS * dimensions);
  const texts = [];
  const recording = {
    ...embedder,
    async getTextEmbeddings(batch) {
      const out = await embedder.getTextEmbeddings(batch);
      out.forEach((vector, index) => {
        if ((texts.length + 1) * dimensions > vectors.length) {
          const grown = new Float32Array(vectors.length * 2);
          grown.set(vectors);
          vectors = grown;
        }
        vectors.set(vector, texts.length * dimensions);
        texts.push(batch[index]);
      });
      return out;
    },
  };
  const started = performance.now();
  const index = await lib.VectorStoreIndex.fromDocumentsCached(documents, {
    cacheDir,
    embedModel: recording,
    splitter,
  });
  const buildMs = performance.now() - started;
  const norms = new Float64Array(texts.length);
  for (let row = 0; row < texts.length; row++) {
    let sum = 0;
    for (let d = 0, at = row * dimensions; d < dimensions; d++, at++) sum += vectors[at] * vectors[at];
    norms[row] = Math.sqrt(sum);
  }
  const retriever = index.asRetriever({ similarityTopK: 10, retrievalMode: "dense" });
  let found = 0;
  let asked = 0;
  for (const question of questions) {
    const query = await embedder.getQueryEmbedding(question);
    let queryNorm = 0;
    for (const value of query) queryNorm += value * value;
    queryNorm = Math.sqrt(queryNorm);
    const scores = new Float64Array(texts.length);
    for (let row = 0; row < texts.length; row++) {
      let dot = 0;
      for (let d = 0, at = row * dimensions; d < dimensions; d++, at++) dot += vectors[at] * query[d];
      scores[row] = dot / (norms[row] * queryNorm);
    }
    const tenth = Float64Array.from(scores).sort()[texts.length - 10];
    const exact = new Set(texts.filter((_, row) => scores[row] >= tenth));
    const hits = await retriever.retrieve({ query: question });
    // A hit counts when it is one of the exact top 10 (its text), or ties the tenth score.
    found += hits.filter((hit) => exact.has(hit.node.text) || hit.score >= tenth - 1e-6).length;
    asked++;
  }
  const chunks = index.buildStats.chunks;
  await index.close();
  console.log(
    JSON.stringify({
      vectors: texts.length,
      chunks,
      dimensions,
      buildMs,
      recall: found / (asked * 10),
      questions: asked,
    }),
  );
} else if (command === "query") {
  const [question, runs] = rest;
  // The time of embedding the query (the model's, not the index's) is measured apart from the retriever's.
  const embedder = projectedEmbedder(lib);
  let embedMs = 0;
  const timedEmbedder = {
    ...embedder,
    async getQueryEmbedding(text) {
      const started = performance.now();
      const vector = await embedder.getQueryEmbedding(text);
      embedMs += performance.now() - started;
      return vector;
    },
  };
  const index = await lib.VectorStoreIndex.load(cacheDir, { embedModel: timedEmbedder });
  const retriever = index.asRetriever({ similarityTopK: 10, retrievalMode: "dense" });
  const times = [];
  const searches = [];
  const embeds = [];
  for (let run = 0; run <= Number(runs); run++) {
    embedMs = 0;
    const started = performance.now();
    const hits = await retriever.retrieve({ query: question });
    times.push(performance.now() - started);
    embeds.push(embedMs);
    searches.push(times.at(-1) - embedMs);
    if (hits.length !== 10) throw new Error(`expected 10 hits, got ${hits.length}`);
  }
  await index.close();
  const rss = process.resourceUsage().maxRSS / 1024;
  console.log(
    JSON.stringify({
      firstMs: times[0],
      warmMs: median(times.slice(1)),
      searchFirstMs: searches[0],
      searchWarmMs: median(searches.slice(1)),
      embedFirstMs: embeds[0],
      rss,
    }),
  );
} else {
  throw new Error(`unknown command ${command}`);
}
