import { checkCitations } from "../citations/check-citations.js";
import { createCitationNodes } from "../citations/citation-nodes.js";
import {
  CITATION_QA_TEMPLATE,
  CITATION_REFINE_TEMPLATE,
  DEFAULT_CITATION_CHUNK_OVERLAP,
  DEFAULT_CITATION_CHUNK_SIZE,
} from "../citations/citation-prompts.js";
import type { CitationSource } from "../citations/citation-source.js";
import { citeVerbatimQuotes } from "../citations/cite-verbatim-quotes.js";
import type { LLM } from "../llm/types.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import type { AnswerCitations } from "./eval-result.js";
import { matchesRelevant } from "./retrieval-metrics.js";

/** The prompts every mode answers with under `citations`: LlamaIndex's CitationQueryEngine's, as ragsynth's uses them. */
export const CITATION_TEMPLATES = {
  textQaTemplate: CITATION_QA_TEMPLATE,
  refineTemplate: CITATION_REFINE_TEMPLATE,
  summaryTemplate: CITATION_QA_TEMPLATE,
};

/** Cuts a question's retrieved nodes into the numbered `Source N:` pieces every mode answers from. */
export function citationPieces(
  nodes: readonly NodeWithScore[],
  llm: LLM,
): { nodes: NodeWithScore[]; sources: CitationSource[] } {
  const tokenizer = llm.metadata.tokenizer;
  const splitter = new SentenceSplitter({
    chunkSize: DEFAULT_CITATION_CHUNK_SIZE,
    chunkOverlap: DEFAULT_CITATION_CHUNK_OVERLAP,
    ...(tokenizer ? { tokenizer } : {}),
  });
  return createCitationNodes({ nodes, splitter });
}

/**
 * Checks an answer's citations as `ask --citations` does (the offline extractive answer's quotes cited with
 * `citeVerbatimQuotes`) and counts them: valid, from a relevant file (when the question names its files), unsupported
 * by their piece, invalid (naming no piece), and uncited sentences. Returns the text shown (invalid markers removed).
 */
export async function scoreCitations({
  answer,
  sources,
  llm,
  relevant,
  signal,
}: {
  answer: string;
  sources: readonly CitationSource[];
  llm: LLM;
  relevant: readonly string[] | undefined;
  signal: AbortSignal;
}): Promise<{ text: string; citations: AnswerCitations }> {
  // The offline answerer quotes and writes no markers; its quotes are cited with the piece they were copied from.
  const quoted = llm.metadata.model === "extractive" ? citeVerbatimQuotes({ answer, sources }) : answer;
  const { text, report } = await checkCitations({ text: quoted, sources, signal });
  const citations: AnswerCitations = {
    citations: report.citations.length,
    unsupported: report.unsupported.length,
    invalid: report.invalid.length,
    uncited: report.uncited.length,
  };
  if (relevant) {
    citations.fromRelevant = report.citations.filter(({ source }) =>
      relevant.some((entry) =>
        matchesRelevant({ id: source.node.node.id, filePath: source.location.filePath }, entry),
      ),
    ).length;
  }
  return { text, citations };
}
