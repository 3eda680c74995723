import { lexicalTerms } from "../analysis/lexical-terms.js";
import type { Embedder } from "../embedding/types.js";
import { contextFiles, fileWeights, METADATA_LINE } from "./context-files.js";
import type { ExtractiveRequest } from "./extractive-request.js";
import { scorePassages } from "./passage-scores.js";
import { type Passage, splitPassages } from "./passages.js";
import { quoteAdmission } from "./quote-admission.js";
import { neighbourWidener, passagesQuoted } from "./quote-widening.js";

// A short section (the text under one heading) is also a candidate, quoted whole: in reference docs the
// answer is often its "Default: `72000`" line next to the sentence that names the option.
const MAX_SECTION = 500;
// Retrieval put the best chunk first: a passage of the k-th file (0-based, in the order the context first shows
// each) keeps 1 / (1 + RANK_DECAY × k) of its score, so a passage of another file wins only by clearly matching
// better. Chunks of one file share its rank (a citation piece is not demoted for being its node's second piece).
const RANK_DECAY = 0.3;

/** The settings {@link extractAnswer} needs. @internal */
export interface ExtractAnswerSettings {
  embedModel: Embedder | undefined;
  maxSentences: number;
  minScore: number;
  satisfiedThreshold: number;
  splitSentences: ((text: string) => string[]) | undefined;
  signal: AbortSignal | undefined;
  /** The quotes and scores of an answer this answerer gave earlier, when it remembers `answer`. */
  recall?: ((answer: string) => RememberedQuote[] | undefined) | undefined;
}

/** One quote of an earlier answer with the score that chose it. @internal */
export interface RememberedQuote {
  text: string;
  multiline: boolean;
  score: number;
}

/**
 * The extracted answer: verbatim quotes of the context (or of the existing answer) in document order, and
 * whether one covers the query well. Each quote is `source.slice(start, end)` of one source. @internal
 */
export interface ExtractedAnswer {
  sentences: string[];
  /** Per quote: whether it holds lines (code, a list item, a table row) rather than prose. */
  multiline: boolean[];
  /** Per quote: the score that chose it (the best of the passages it joins). */
  scores: number[];
  querySatisfied: boolean;
}

interface Candidate extends Passage {
  /** 0 for the existing answer, 1 for the context. */
  source: number;
  /** A whole short section (which overlaps the passages it is made of). */
  whole: boolean;
  /** Which retrieved file of the context it comes from, best first (0 for the answer so far). */
  rank: number;
  /** That file's metadata lines (`file_path: docs/a.md`), or "" for the answer so far or a context without them. */
  file: string;
  position: number;
  score: number;
  /** How much the query concerns its file, from `fileWeights` (1 for the answer so far, or without a query). */
  fileWeight: number;
}

/**
 * Ranks the passages of the context (sentences, code blocks, list items, table rows; see `splitPassages`)
 * and of the existing answer, when refining, against the query, and keeps the best `maxSentences` scoring
 * above `minScore`, in document order, without duplicates. Passages next to each other in their source are
 * quoted as one slice of it, so a quote is always verbatim. Without an embedding model the ranking is BM25 over
 * the passages, each scored with its heading; without a query it is closeness to the centroid of all
 * passages (an extractive summary). When refining and no new passage scores, the existing answer stays.
 * @internal
 */
export async function extractAnswer(
  request: ExtractiveRequest,
  settings: ExtractAnswerSettings,
): Promise<ExtractedAnswer> {
  const query = request.query.trim();
  const sources = [request.existingAnswer ?? "", request.context];
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  const recalled =
    request.existingAnswer === undefined ? undefined : settings.recall?.(request.existingAnswer);
  const rememberedSplit = recalled && rememberedPassages(request.existingAnswer as string, recalled);
  const remembered = rememberedSplit === undefined ? undefined : recalled;
  let labels: ReadonlyMap<number, string> = new Map();
  sources.forEach((text, source) => {
    const passages =
      source === 0 && rememberedSplit !== undefined
        ? rememberedSplit
        : splitPassages(text, settings.splitSentences);
    // When refining, the answer so far came from the better-ranked chunks: the new context ranks after it.
    const files = contextFiles(text, request.existingAnswer === undefined || source === 0 ? 0 : 1);
    const wholeSections = sections(
      text,
      passages,
      (passage) => source === 1 && files.inHeader(passage.start),
    );
    if (source === 1) labels = files.labels;
    for (const passage of [...passages, ...wholeSections]) {
      const key = dedupeKey(passage.text);
      const unquotable = source === 1 && (isStructural(passage.text) || files.inHeader(passage.start));
      if (key === "" || seen.has(key) || unquotable) continue;
      seen.add(key);
      const whole = wholeSections.includes(passage);
      const rank = source === 0 ? 0 : files.rankOf(passage.start);
      const file = source === 0 ? "" : (files.labels.get(rank) ?? "");
      candidates.push({
        ...passage,
        source,
        whole,
        rank,
        file,
        position: candidates.length,
        score: 0,
        fileWeight: 1,
      });
    }
  });
  const existingCount = candidates.filter((candidate) => candidate.source === 0).length;
  if (candidates.length === 0) return { sentences: [], multiline: [], scores: [], querySatisfied: false };
  const scores = await scorePassages(candidates, query, settings);
  // A remembered quote of the answer so far keeps the score that chose it against its own, better-ranked context.
  if (remembered !== undefined)
    candidates.forEach((candidate, index) => {
      if (candidate.source === 0) scores[index] = remembered[candidate.block]?.score ?? 0;
    });
  // Passages of a retrieved file the query hardly concerns are not quoted; the others weigh by file and rank.
  const fileWeight = fileWeights(
    candidates.filter((candidate) => !candidate.whole),
    labels,
    query,
  );
  candidates.forEach((candidate, index) => {
    const own = scores[index] as number;
    candidate.fileWeight = fileWeight(candidate);
    candidate.score =
      own > 0 && query !== "" ? (own * candidate.fileWeight) / (1 + RANK_DECAY * candidate.rank) : own;
  });
  const eligible =
    query === "" ? candidates : candidates.filter((c) => c.score > settings.minScore && c.fileWeight > 0);
  if (request.existingAnswer !== undefined && !eligible.some((c) => c.position >= existingCount)) {
    const unchanged = request.existingAnswer.trim();
    return {
      sentences: unchanged === "" ? [] : [unchanged],
      multiline: [unchanged.includes("\n")],
      scores:
        unchanged === ""
          ? []
          : [Math.max(0, ...candidates.filter((c) => c.source === 0).map((c) => c.score))],
      querySatisfied: isSatisfied(
        candidates.filter((c) => c.source === 0).map((c) => c.text),
        query,
        settings.satisfiedThreshold,
      ),
    };
  }
  const chosen: Candidate[] = [];
  let used = 0;
  const widen =
    query === "" ? (candidate: Candidate) => candidate : neighbourWidener(candidates, sources, query);
  const admission = query === "" ? undefined : quoteAdmission(eligible, query);
  for (const best of [...eligible].sort((a, b) => b.score - a.score || a.position - b.position)) {
    if (used >= settings.maxSentences) break;
    // A quote widened into one already chosen is taken as it stands.
    const candidate = [widen(best), best].find((quote) => !chosen.some((other) => overlaps(other, quote)));
    if (candidate !== undefined && (admission?.admits(candidate) ?? true)) {
      chosen.push(candidate);
      admission?.quoted(candidate);
      used += passagesQuoted(candidate, candidates);
    }
  }
  chosen.sort((left, right) => left.source - right.source || left.start - right.start);
  const quotes = mergeAdjacent(chosen, sources);
  return {
    sentences: quotes.map((quote) => quote.text),
    multiline: quotes.map((quote) => quote.kind === "lines"),
    scores: quotes.map((quote) => quote.score),
    querySatisfied: isSatisfied(
      chosen.map((c) => c.text),
      query,
      settings.satisfiedThreshold,
    ),
  };
}

/**
 * The remembered quotes of an earlier answer, found in order in its text, each its own block; undefined
 * unless they are all there and the text holds nothing else (then the answer is split afresh).
 */
function rememberedPassages(text: string, quotes: readonly RememberedQuote[]): Passage[] | undefined {
  const passages: Passage[] = [];
  let position = 0;
  for (const [block, quote] of quotes.entries()) {
    const start = text.indexOf(quote.text, position);
    if (start === -1 || text.slice(position, start).trim() !== "") return undefined;
    position = start + quote.text.length;
    const kind = quote.multiline ? "lines" : "sentence";
    passages.push({
      start,
      end: position,
      text: quote.text,
      kind,
      heading: "",
      term: "",
      section: -1,
      block,
    });
  }
  return text.slice(position).trim() === "" && passages.length > 0 ? passages : undefined;
}

/**
 * The short sections of a text: each heading's passages as one slice, when there are two or more. A section ends at
 * a chunk's metadata header (`inHeader`): the next chunk is another piece, often of another file, and a slice across
 * it quoted that header (`file_path: …`) and the next chunk's text as the section's.
 */
function sections(
  text: string,
  passages: readonly Passage[],
  inHeader: (passage: Passage) => boolean,
): Passage[] {
  const result: Passage[] = [];
  let run: Passage[] = [];
  for (const passage of passages) {
    if (!inHeader(passage)) {
      run.push(passage);
      continue;
    }
    for (const section of sectionsOf(text, run)) result.push(section);
    run = [];
  }
  for (const section of sectionsOf(text, run)) result.push(section);
  return result;
}

/** {@link sections} of passages with no chunk header among them. */
function sectionsOf(text: string, passages: readonly Passage[]): Passage[] {
  const result: Passage[] = [];
  let first = 0;
  for (let index = 1; index <= passages.length; index++) {
    const start = passages[first] as Passage;
    const current = passages[index];
    if (current !== undefined && current.section === start.section) continue;
    const last = passages[index - 1] as Passage;
    if (start.section >= 0 && index - first >= 2 && last.end - start.start <= MAX_SECTION) {
      result.push({
        ...start,
        end: last.end,
        text: text.slice(start.start, last.end),
        kind: "lines",
        term: "",
      });
    }
    first = index;
  }
  return result;
}

function overlaps(left: Candidate, right: Candidate): boolean {
  return left.source === right.source && left.start < right.end && right.start < left.end;
}

/** Chosen passages with only whitespace between them in their source become one slice of that source. */
function mergeAdjacent(chosen: readonly Candidate[], sources: readonly string[]): Candidate[] {
  const merged: Candidate[] = [];
  for (const candidate of chosen) {
    const previous = merged[merged.length - 1];
    const text = sources[candidate.source] as string;
    if (
      previous &&
      previous.source === candidate.source &&
      previous.kind === candidate.kind &&
      text.slice(previous.end, candidate.start).trim() === "" &&
      !text.slice(previous.end, candidate.start).includes("\n\n")
    ) {
      previous.end = candidate.end;
      previous.text = text.slice(previous.start, previous.end);
      previous.score = Math.max(previous.score, candidate.score);
    } else {
      merged.push({ ...candidate });
    }
  }
  return merged;
}

/**
 * A Markdown heading, or a node's metadata line (`file_path: docs/a.md`, as `getContent(MetadataMode.LLM)`
 * puts it before the text), names a topic but answers nothing, though it often matches the query's words.
 */
function isStructural(passage: string): boolean {
  const line = passage.trim();
  if (isLinksOnly(line)) return true;
  if (line.includes("\n")) return false;
  return /^#{1,6}\s/.test(line) || METADATA_LINE.test(line);
}

/**
 * A table-of-contents entry, a badge row or a bare link list: once its links, images, list markers, table
 * pipes and punctuation are gone, nothing is left to answer with.
 */
function isLinksOnly(line: string): boolean {
  if (!/\]\(|\]\[|<a |https?:\/\//.test(line)) return false;
  const rest = line
    .replace(/!?\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/!?\[[^\]]*\]\[[^\]]*\]/g, "")
    .replace(/<[^>]+>/g, "")
    .replace(/https?:\/\/\S+/g, "")
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, "");
  return !/[\p{L}\p{N}]/u.test(rest);
}

// A passage satisfies the query when it contains at least `threshold` of the query's distinct terms.
function isSatisfied(passages: string[], query: string, threshold: number): boolean {
  if (query === "") return passages.length > 0;
  const queryTerms = new Set(lexicalTerms(query));
  if (queryTerms.size === 0) return false;
  return passages.some((passage) => {
    const terms = new Set(lexicalTerms(passage));
    let shared = 0;
    for (const term of queryTerms) if (terms.has(term)) shared++;
    return shared / queryTerms.size >= threshold;
  });
}

function dedupeKey(passage: string): string {
  return passage.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}
