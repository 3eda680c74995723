import type { QuestionEngine } from "../batch/question-processor.js";
import type { JsonValue } from "../batch/types.js";
import { PromptHelper } from "../budget/index.js";
import { CitationQueryEngine } from "../citations/citation-query-engine.js";
import type { VectorStoreIndex } from "../index-store/index.js";
import type { LLM } from "../llm/types.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import type { ResponseMode } from "../synthesizer/types.js";

/**
 * The engine of one batch question: a `RetrieverQueryEngine` over the index with the item's settings (mode,
 * top-k, system prompt, templates), or with `citations` a `CitationQueryEngine`, whose result carries its checked
 * citations. In citation mode an item's templates replace the citation prompts (they should ask for `[N]` markers
 * themselves); the offline answerer's quotes are cited by construction, as in `ask --citations`.
 */
export function buildQuestionEngine({
  llm,
  index,
  settings,
  mode,
  numOutput,
  concurrency,
  citations,
}: {
  llm: LLM;
  index: VectorStoreIndex;
  /** The run's config with the item's overrides applied, checked. */
  settings: Record<string, JsonValue | undefined>;
  mode: ResponseMode;
  numOutput: number | null;
  concurrency: number;
  citations: boolean;
}): QuestionEngine {
  const template = (name: string, as = name) =>
    typeof settings[name] === "string"
      ? { [as]: new PromptTemplate({ template: settings[name] as string }) }
      : {};
  const common = {
    retriever: index.asRetriever({ similarityTopK: Number(settings.topK) }),
    responseMode: mode,
    llm,
    promptHelper: PromptHelper.fromLLMMetadata(llm.metadata, { numOutput: numOutput ?? undefined }),
    concurrency,
    ...(typeof settings.systemPrompt === "string" ? { systemPrompt: settings.systemPrompt } : {}),
    ...(llm.metadata.tokenizer ? { tokenizer: llm.metadata.tokenizer } : {}),
  };
  if (citations) {
    return new CitationQueryEngine({
      ...common,
      ...template("textQaTemplate", "citationQaTemplate"),
      ...template("refineTemplate", "citationRefineTemplate"),
      ...template("summaryTemplate", "citationSummaryTemplate"),
      citeVerbatimQuotes: llm.metadata.kind === "extractive",
    });
  }
  return new RetrieverQueryEngine({
    ...common,
    ...template("textQaTemplate"),
    ...template("refineTemplate"),
    ...template("summaryTemplate"),
  });
}
