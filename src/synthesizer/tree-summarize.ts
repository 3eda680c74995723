import type { ZodType } from "zod";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { createSynthesizer, type SynthesizerSettings } from "./create-synthesizer.js";
import { summarizeLevels } from "./summarize-levels.js";
import type { ResponseSynthesizer } from "./types.js";

export interface TreeSummarizeModeOptions<T> {
  settings: SynthesizerSettings;
  summaryTemplate: BasePromptTemplate;
  /** The multimodal summary prompt (nodes with images). */
  chatContentSummaryTemplate: BasePromptTemplate;
  outputSchema: ZodType<T> | undefined;
}

/**
 * `tree_summarize`: pack the chunks against the summary prompt (query filled in), summarize each packed
 * chunk (at most `concurrency` calls at once), and repeat on the summaries until one chunk is left; that
 * last call streams. The tree always converges: summaries of every round but the last are asked for at most
 * `min(numOutput, ⌊(chunk size − separator) / 2⌋)` tokens, so two of them share a chunk; the last call may
 * use numOutput. When that bound is below {@link MIN_SUMMARY_TOKENS} it throws `ContextOverflowError` before
 * the first call (numOutput 0, LlamaIndex's test setting, reserves nothing and caps nothing). A round that still packs into no fewer chunks (a model ignoring its output limit) stops
 * with `tree_not_shrinking`. Differs from LlamaIndex: bounded concurrency, capped intermediate summaries, and a
 * typed error instead of unbounded recursion.
 */
export function createTreeSummarizeSynthesizer<T>(
  options: TreeSummarizeModeOptions<T>,
): ResponseSynthesizer<T> {
  return createSynthesizer<T>({
    ...options.settings,
    mode: "tree_summarize",
    prompts: {
      summary_template: options.summaryTemplate,
      chat_content_summary_template: options.chatContentSummaryTemplate,
    },
    imageNodes: "blocks",
    run: (context) => summarizeLevels(context, options.outputSchema),
  });
}
