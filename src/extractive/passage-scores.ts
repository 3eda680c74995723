import { lexicalTokens } from "../analysis/lexical-tokens.js";
import { meanAggregate } from "../embedding/aggregate.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { similarity } from "../embedding/similarity.js";
import type { Embedder } from "../embedding/types.js";
import { LexicalIndex } from "../retrieval/lexical-index.js";
import { type QuotablePassage, termInReach } from "./quote-widening.js";

// How the offline answerer (extractive-answer.ts) scores its candidate passages against the question: BM25 over the
// passages with their headings, or closeness by an embedding model; each passage also weighs with its section.

/** How much of a passage's section's BM25 score it takes on beside its own. */
const SECTION_WEIGHT = 0.5;

/**
 * Each candidate's score against `query`, in order: without an embedding model, BM25 over the passages (a passage's
 * heading and the term it is quoted with count as its words; see {@link withSectionScores}); with one, cosine to the
 * query; without a query, closeness to the centroid of all passages (an extractive summary).
 */
export async function scorePassages(
  candidates: readonly QuotablePassage[],
  query: string,
  settings: { embedModel: Embedder | undefined; signal: AbortSignal | undefined },
): Promise<number[]> {
  const texts = candidates.map((candidate) => candidate.text);
  if (settings.embedModel === undefined && query !== "") {
    // BM25 over the passages: rare query words weigh most, and a passage's heading (and the term it is quoted with)
    // counts as its words.
    const index = new LexicalIndex();
    const withTerm = termInReach(candidates);
    for (const [id, candidate] of candidates.entries())
      index.add(
        String(id),
        `${candidate.heading}\n${withTerm(candidate) ? candidate.term : ""}\n${candidate.text}`,
      );
    const scores = new Array<number>(candidates.length).fill(0);
    for (const hit of index.search(query, { topK: candidates.length })) scores[Number(hit.id)] = hit.score;
    // A lone word scores by its own words only: under "http.createServer([options])" Node's "History" label (one
    // word, the heading's words around it) would outrank the sentences that answer. A longer terse line keeps its
    // heading's help ("Default: `10000`" under "pluginTimeout").
    const queryTerms = new Set(lexicalTokens(query));
    for (const [id, candidate] of candidates.entries()) {
      if (scores[id] === 0) continue;
      const own = lexicalTokens(`${withTerm(candidate) ? candidate.term : ""}\n${candidate.text}`);
      if (own.length <= 1 && !own.some((term) => queryTerms.has(term))) scores[id] = 0;
    }
    return withSectionScores(candidates, scores, query);
  }
  let embeddings: number[][];
  let queryEmbedding: number[] | undefined;
  let compare: (a: number[], b: number[]) => number = (a, b) => similarity(a, b);
  if (settings.embedModel === undefined) {
    const embedModel = new HashingEmbedder().fit(texts);
    embeddings = texts.map((text) => embedModel.embed(text));
  } else {
    const { embedModel, signal } = settings;
    const embedOptions = signal ? { signal } : {};
    embeddings = await embedModel.getTextEmbeddings(texts, embedOptions);
    if (query !== "") queryEmbedding = await embedModel.getQueryEmbedding(query, embedOptions);
    if (embedModel.similarity)
      compare = (a, b) => (embedModel.similarity as NonNullable<Embedder["similarity"]>)(a, b);
  }
  settings.signal?.throwIfAborted();
  const target = queryEmbedding ?? meanAggregate(embeddings);
  return embeddings.map((embedding) => compare(target, embedding));
}

/**
 * Adds half the BM25 score of the passage's whole section (heading and all its text) to each passage that
 * scores on its own, so a terse line ("Default: `'info'`") in the section about the question can beat a
 * wordier sentence elsewhere.
 */
function withSectionScores(
  candidates: readonly QuotablePassage[],
  scores: number[],
  query: string,
): number[] {
  const sectionText = new Map<string, string>();
  for (const candidate of candidates) {
    if (candidate.section < 0 || candidate.whole) continue;
    const key = `${candidate.source}:${candidate.section}`;
    sectionText.set(key, `${sectionText.get(key) ?? candidate.heading}\n${candidate.text}`);
  }
  if (sectionText.size < 2) return scores;
  const index = new LexicalIndex();
  for (const [key, text] of sectionText) index.add(key, text);
  const sectionScores = new Map(
    index.search(query, { topK: sectionText.size }).map((hit) => [hit.id, hit.score]),
  );
  return scores.map((own, id) => {
    const candidate = candidates[id] as QuotablePassage;
    const section = sectionScores.get(`${candidate.source}:${candidate.section}`) ?? 0;
    return own > 0 ? own + SECTION_WEIGHT * section : 0;
  });
}
