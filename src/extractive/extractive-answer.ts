import { meanAggregate } from "../embedding/aggregate.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { lexicalTerms } from "../embedding/lexical-terms.js";
import { similarity } from "../embedding/similarity.js";
import type { Embedder } from "../embedding/types.js";
import type { ExtractiveRequest } from "./extractive-request.js";

/** The settings {@link extractAnswer} needs. @internal */
export interface ExtractAnswerSettings {
  embedder: Embedder | undefined;
  maxSentences: number;
  minScore: number;
  satisfiedThreshold: number;
  splitSentences: (text: string) => string[];
  signal: AbortSignal | undefined;
}

/** The extracted answer: its sentences in document order, and whether one covers the query well. @internal */
export interface ExtractedAnswer {
  sentences: string[];
  querySatisfied: boolean;
}

interface Candidate {
  text: string;
  position: number;
  score: number;
}

/**
 * Ranks the sentences of the context (and of the existing answer, when refining) against the query and
 * keeps the best `maxSentences` with a score above `minScore`, in document order, without duplicates.
 * Without a query it ranks by closeness to the centroid of all sentences (an extractive summary).
 * When refining and no new sentence scores, the existing answer is returned unchanged.
 * @internal
 */
export async function extractAnswer(
  request: ExtractiveRequest,
  settings: ExtractAnswerSettings,
): Promise<ExtractedAnswer> {
  const query = request.query.trim();
  const existing = unique(settings.splitSentences(request.existingAnswer ?? ""), new Set());
  const fresh = unique(
    settings.splitSentences(request.context).filter((sentence) => !isStructural(sentence)),
    new Set(existing.map(dedupeKey)),
  );
  const texts = [...existing, ...fresh];
  if (texts.length === 0) return { sentences: [], querySatisfied: false };
  const scores = await score(texts, query, settings);
  const candidates = texts.map((text, position) => ({ text, position, score: scores[position] as number }));
  const eligible =
    query === "" ? candidates : candidates.filter((candidate) => candidate.score > settings.minScore);
  if (
    request.existingAnswer !== undefined &&
    !eligible.some((candidate) => candidate.position >= existing.length)
  ) {
    const unchanged = request.existingAnswer.trim();
    return {
      sentences: unchanged === "" ? [] : [unchanged],
      querySatisfied: isSatisfied(existing, query, settings.satisfiedThreshold),
    };
  }
  const chosen = [...eligible]
    .sort((left, right) => right.score - left.score || left.position - right.position)
    .slice(0, settings.maxSentences)
    .sort((left, right) => left.position - right.position)
    .map((candidate: Candidate) => candidate.text);
  return { sentences: chosen, querySatisfied: isSatisfied(chosen, query, settings.satisfiedThreshold) };
}

/**
 * A Markdown heading, or a node's metadata line (`file_path: docs/a.md`, as `getContent(MetadataMode.LLM)`
 * puts it before the text), names a topic but answers nothing, though it often matches the query's words.
 */
function isStructural(sentence: string): boolean {
  const line = sentence.trim();
  if (line.includes("\n")) return false;
  return /^#{1,6}\s/.test(line) || /^[a-z][a-z0-9]*_[a-z0-9_]*: \S+$/.test(line);
}

async function score(texts: string[], query: string, settings: ExtractAnswerSettings): Promise<number[]> {
  let embeddings: number[][];
  let queryEmbedding: number[] | undefined;
  let compare: (a: number[], b: number[]) => number = (a, b) => similarity(a, b);
  if (settings.embedder === undefined) {
    const embedder = new HashingEmbedder().fit(query === "" ? texts : [...texts, query]);
    embeddings = texts.map((text) => embedder.embed(text));
    if (query !== "") queryEmbedding = embedder.embed(query);
  } else {
    const { embedder, signal } = settings;
    const embedOptions = signal ? { signal } : {};
    embeddings = await embedder.getTextEmbeddings(texts, embedOptions);
    if (query !== "") queryEmbedding = await embedder.getQueryEmbedding(query, embedOptions);
    if (embedder.similarity)
      compare = (a, b) => (embedder.similarity as NonNullable<Embedder["similarity"]>)(a, b);
  }
  settings.signal?.throwIfAborted();
  const target = queryEmbedding ?? meanAggregate(embeddings);
  return embeddings.map((embedding) => compare(target, embedding));
}

// A sentence satisfies the query when it contains at least `threshold` of the query's distinct terms.
function isSatisfied(sentences: string[], query: string, threshold: number): boolean {
  if (query === "") return sentences.length > 0;
  const queryTerms = new Set(lexicalTerms(query));
  if (queryTerms.size === 0) return false;
  return sentences.some((sentence) => {
    const terms = new Set(lexicalTerms(sentence));
    let shared = 0;
    for (const term of queryTerms) if (terms.has(term)) shared++;
    return shared / queryTerms.size >= threshold;
  });
}

function unique(sentences: string[], seen: Set<string>): string[] {
  const result: string[] = [];
  for (const raw of sentences) {
    const sentence = raw.trim();
    const key = dedupeKey(sentence);
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    result.push(sentence);
  }
  return result;
}

function dedupeKey(sentence: string): string {
  return sentence.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}
