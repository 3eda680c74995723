import type { PromptHelper } from "../budget/index.js";
import type { CitationJudge } from "../citations/citation-judge.js";
import { CitationQueryEngine } from "../citations/citation-query-engine.js";
import type { RagsynthEvent } from "../events/events.js";
import type { LLM } from "../llm/types.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import type { ResponseMode } from "../synthesizer/types.js";
import type { IndexQuery } from "./index-query.js";

/** The prompts a question may bring: the answer's templates (citation prompts in citation mode), a system prompt. */
export interface QuestionPrompts {
  textQaTemplate?: string | undefined;
  refineTemplate?: string | undefined;
  summaryTemplate?: string | undefined;
  systemPrompt?: string | undefined;
}

/** Options of {@link questionEngine}. */
export interface QuestionEngineOptions {
  llm: LLM;
  /** Retrieval and postprocessing (`indexQuery`). */
  query: Pick<IndexQuery, "retriever" | "nodePostprocessors">;
  mode: ResponseMode;
  promptHelper: PromptHelper;
  concurrency: number | "adaptive";
  /** Answer with `[N]` citations, each checked against its source. */
  citations: boolean;
  /** With `citations`: a judge of each citation's support. @default overlap and embeddings only */
  judge?: CitationJudge | undefined;
  prompts?: QuestionPrompts | undefined;
  onEvent?: ((event: RagsynthEvent) => void) | undefined;
}

/**
 * The engine that answers one question, written once for `ask` and for every batch question: a
 * `RetrieverQueryEngine`, or with `citations` a `CitationQueryEngine`, whose result carries its checked citations.
 * In citation mode the templates replace the citation prompts (they should ask for `[N]` markers themselves); the
 * offline answerer's quotes are cited by construction (`citeVerbatimQuotes`).
 */
export function questionEngine({
  llm,
  query,
  mode,
  promptHelper,
  concurrency,
  citations,
  judge,
  prompts = {},
  onEvent,
}: QuestionEngineOptions): RetrieverQueryEngine | CitationQueryEngine {
  const template = (name: keyof QuestionPrompts, as: string = name) =>
    prompts[name] === undefined ? {} : { [as]: new PromptTemplate({ template: prompts[name] }) };
  const common = {
    retriever: query.retriever,
    nodePostprocessors: query.nodePostprocessors,
    responseMode: mode,
    llm,
    promptHelper,
    concurrency,
    ...(prompts.systemPrompt === undefined ? {} : { systemPrompt: prompts.systemPrompt }),
    ...(llm.metadata.tokenizer ? { tokenizer: llm.metadata.tokenizer } : {}),
    ...(onEvent ? { onEvent } : {}),
  };
  if (citations) {
    return new CitationQueryEngine({
      ...common,
      ...template("textQaTemplate", "citationQaTemplate"),
      ...template("refineTemplate", "citationRefineTemplate"),
      ...template("summaryTemplate", "citationSummaryTemplate"),
      citeVerbatimQuotes: llm.metadata.kind === "extractive",
      ...(judge ? { judge } : {}),
    });
  }
  return new RetrieverQueryEngine({
    ...common,
    ...template("textQaTemplate"),
    ...template("refineTemplate"),
    ...template("summaryTemplate"),
  });
}
