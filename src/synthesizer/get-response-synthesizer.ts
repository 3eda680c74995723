import type { ZodType } from "zod";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { checkModel } from "../llm/check-model.js";
import {
  CHAT_CONTENT_QA_PROMPT,
  CHAT_CONTENT_REFINE_PROMPT,
  CHAT_CONTENT_TREE_SUMMARIZE_PROMPT,
  DEFAULT_REFINE_PROMPT_SEL,
  DEFAULT_SIMPLE_INPUT_PROMPT,
  DEFAULT_TEXT_QA_PROMPT_SEL,
  DEFAULT_TREE_SUMMARIZE_PROMPT_SEL,
} from "../prompt/default-prompts.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { createAccumulateSynthesizer, DEFAULT_ACCUMULATE_SEPARATOR } from "./accumulate.js";
import { createContextOnlySynthesizer, createNoTextSynthesizer } from "./context-only.js";
import type { SynthesizerSettings } from "./create-synthesizer.js";
import { createGenerationSynthesizer } from "./generation.js";
import { createRefineSynthesizer } from "./refine.js";
import { createSimpleSummarizeSynthesizer } from "./simple-summarize.js";
import { checkTemplateSlots } from "./template-slots.js";
import { createTreeSummarizeSynthesizer } from "./tree-summarize.js";
import { RESPONSE_MODES, type ResponseMode, type ResponseSynthesizer } from "./types.js";

export interface GetResponseSynthesizerOptions<T = unknown> extends SynthesizerSettings {
  /** How to turn the nodes into an answer; see `docs/synthesizers.md`. @default "compact" */
  responseMode?: ResponseMode;
  /** The first-answer prompt (refine, compact, simple_summarize, accumulate modes). @default DEFAULT_TEXT_QA_PROMPT_SEL */
  textQaTemplate?: BasePromptTemplate;
  /** The refine prompt (refine, compact). @default DEFAULT_REFINE_PROMPT_SEL */
  refineTemplate?: BasePromptTemplate;
  /** The summary prompt (tree_summarize). @default DEFAULT_TREE_SUMMARIZE_PROMPT_SEL */
  summaryTemplate?: BasePromptTemplate;
  /** The multimodal QA prompt: used instead of `textQaTemplate` when nodes hold images. @default CHAT_CONTENT_QA_PROMPT */
  chatContentQaTemplate?: BasePromptTemplate;
  /** The multimodal refine prompt (refine, compact). @default CHAT_CONTENT_REFINE_PROMPT */
  chatContentRefineTemplate?: BasePromptTemplate;
  /** The multimodal summary prompt (tree_summarize). @default CHAT_CONTENT_TREE_SUMMARIZE_PROMPT */
  chatContentSummaryTemplate?: BasePromptTemplate;
  /** The query-only prompt (generation). @default DEFAULT_SIMPLE_INPUT_PROMPT */
  simpleTemplate?: BasePromptTemplate;
  /**
   * refine/compact: the model answers `{query_satisfied, answer}` and chunks that do not satisfy the query
   * leave the answer unchanged (and are abandoned after a few tokens). Works with streaming, unlike LlamaIndex.
   * @default false
   */
  structuredAnswerFiltering?: boolean;
  /** A zod schema: answers are JSON validated against it and returned as `object`. */
  outputSchema?: ZodType<T>;
  /** Between accumulate answers. @default "\n---------------------\n" */
  separator?: string;
}

const MODEL_FREE_MODES: readonly ResponseMode[] = ["no_text", "context_only"];

/** LlamaIndex options with no counterpart here, and what to use instead: rejected rather than silently ignored. */
const LLAMAINDEX_ONLY_OPTIONS: Readonly<Record<string, string>> = {
  programFactory:
    "ragsynth has no program factory. For typed answers pass outputSchema (a zod schema: the answer is validated JSON); for your own structured-refine algorithm write a mode with createSynthesizer() (see docs/synthesizers.md).",
  program_factory: "Options are camelCase here, and there is no program factory: see programFactory's hint.",
  output_cls: "Pass outputSchema (a zod schema) instead.",
  response_mode: "Options are camelCase: responseMode.",
  text_qa_template: "Options are camelCase: textQaTemplate.",
  refine_template: "Options are camelCase: refineTemplate.",
  summary_template: "Options are camelCase: summaryTemplate.",
  structured_answer_filtering: "Options are camelCase: structuredAnswerFiltering.",
  use_async: "Calls already run concurrently where the mode allows: set concurrency.",
};

function rejectLlamaIndexOnlyOptions(options: Record<string, unknown>): void {
  if (typeof options !== "object" || options === null) return;
  for (const [name, hint] of Object.entries(LLAMAINDEX_ONLY_OPTIONS)) {
    if (options[name] === undefined) continue;
    throw new InvalidArgumentError({
      parameter: name,
      value: typeof options[name] === "function" ? "a function" : options[name],
      expected: "not be set: it is a LlamaIndex option ragsynth does not have",
      hint,
    });
  }
}

/**
 * Builds the synthesizer of a response mode. A custom synthesizer (see {@link createSynthesizer}) is used
 * the same way: anything implementing {@link ResponseSynthesizer} can be passed to the query engine.
 * Differs from LlamaIndex: no global `Settings` (the `llm` is required for modes that call it), and
 * options a mode cannot use are rejected instead of silently ignored.
 * @throws RagsynthError `unknown_mode` listing the valid modes
 * @throws InvalidArgumentError for a missing `llm`, options the mode does not support, or a template without
 *   the slot its text goes into (`{context_str}`, `{context_msg}`, `{existing_answer}`)
 * @example const synthesizer = getResponseSynthesizer({ llm, responseMode: "tree_summarize" });
 */
export function getResponseSynthesizer<T = unknown>(
  options: GetResponseSynthesizerOptions<T>,
): ResponseSynthesizer<T> {
  const given = optionsOf("options", options, '{ llm, responseMode?: "compact", … }');
  const {
    responseMode = "compact",
    textQaTemplate = DEFAULT_TEXT_QA_PROMPT_SEL,
    refineTemplate = DEFAULT_REFINE_PROMPT_SEL,
    summaryTemplate = DEFAULT_TREE_SUMMARIZE_PROMPT_SEL,
    simpleTemplate = DEFAULT_SIMPLE_INPUT_PROMPT,
    chatContentQaTemplate = CHAT_CONTENT_QA_PROMPT,
    chatContentRefineTemplate = CHAT_CONTENT_REFINE_PROMPT,
    chatContentSummaryTemplate = CHAT_CONTENT_TREE_SUMMARIZE_PROMPT,
    structuredAnswerFiltering = false,
    outputSchema,
    separator = DEFAULT_ACCUMULATE_SEPARATOR,
    ...settings
  } = given;
  rejectLlamaIndexOnlyOptions(given as unknown as Record<string, unknown>);
  if (!(RESPONSE_MODES as readonly string[]).includes(responseMode)) {
    throw new RagsynthError({
      code: "unknown_mode",
      message: `Unknown response mode ${JSON.stringify(responseMode)}. Expected one of ${RESPONSE_MODES.map((mode) => `"${mode}"`).join(", ")}. For your own algorithm, use createSynthesizer().`,
    });
  }
  if (!settings.llm && !MODEL_FREE_MODES.includes(responseMode)) {
    throw new InvalidArgumentError({
      parameter: "llm",
      value: settings.llm,
      expected: `be a model (an object implementing LLM) for response mode "${responseMode}"`,
      hint: "There is no global Settings fallback; only no_text and context_only work without a model.",
    });
  }
  if (settings.llm !== undefined) checkModel("llm", settings.llm);
  if (structuredAnswerFiltering && responseMode !== "refine" && responseMode !== "compact") {
    throw new InvalidArgumentError({
      parameter: "structuredAnswerFiltering",
      value: structuredAnswerFiltering,
      expected: `be used with response mode "refine" or "compact" only, not "${responseMode}"`,
    });
  }
  if (structuredAnswerFiltering && outputSchema) {
    throw new InvalidArgumentError({
      parameter: "outputSchema",
      value: "a zod schema",
      expected: "be left out when structuredAnswerFiltering is on",
      hint: "Filtering makes the model answer { query_satisfied, answer } with a text answer.",
    });
  }

  const contentQaRefine = {
    chat_content_qa_template: chatContentQaTemplate,
    chat_content_refine_template: chatContentRefineTemplate,
  };
  const templatesUsed: Partial<Record<ResponseMode, Record<string, BasePromptTemplate>>> = {
    refine: { text_qa_template: textQaTemplate, refine_template: refineTemplate, ...contentQaRefine },
    compact: { text_qa_template: textQaTemplate, refine_template: refineTemplate, ...contentQaRefine },
    tree_summarize: {
      summary_template: summaryTemplate,
      chat_content_summary_template: chatContentSummaryTemplate,
    },
    simple_summarize: { text_qa_template: textQaTemplate, chat_content_qa_template: chatContentQaTemplate },
    generation: { simple_template: simpleTemplate },
    accumulate: { text_qa_template: textQaTemplate, chat_content_qa_template: chatContentQaTemplate },
    compact_accumulate: { text_qa_template: textQaTemplate, chat_content_qa_template: chatContentQaTemplate },
  };
  for (const [key, template] of Object.entries(templatesUsed[responseMode] ?? {}))
    checkTemplateSlots(key, template);

  switch (responseMode) {
    case "refine":
    case "compact":
      return createRefineSynthesizer({
        mode: responseMode,
        settings,
        textQaTemplate,
        refineTemplate,
        chatContentQaTemplate,
        chatContentRefineTemplate,
        structuredAnswerFiltering,
        outputSchema,
      });
    case "tree_summarize":
      return createTreeSummarizeSynthesizer({
        settings,
        summaryTemplate,
        chatContentSummaryTemplate,
        outputSchema,
      });
    case "simple_summarize":
      return createSimpleSummarizeSynthesizer({
        settings,
        textQaTemplate,
        chatContentQaTemplate,
        outputSchema,
      });
    case "generation":
      return createGenerationSynthesizer({ settings, simpleTemplate, outputSchema });
    case "accumulate":
    case "compact_accumulate":
      return createAccumulateSynthesizer({
        mode: responseMode,
        settings,
        textQaTemplate,
        chatContentQaTemplate,
        outputSchema,
        separator,
      });
    case "no_text":
      return createNoTextSynthesizer(settings);
    case "context_only":
      return createContextOnlySynthesizer(settings);
  }
}
