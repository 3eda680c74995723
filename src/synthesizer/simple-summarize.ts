import type { ZodType } from "zod";
import { DEFAULT_PADDING } from "../budget/prompt-helper.js";
import { parseObject } from "../prompt/predict.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import {
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "./create-synthesizer.js";
import { runMessageSimpleSummarize } from "./message-simple.js";
import { modeBudget, reportPack } from "./mode-budget.js";
import type { SynthesizerContext } from "./synthesizer-context.js";
import type { ResponseSynthesizer } from "./types.js";

export interface SimpleSummarizeModeOptions<T> {
  settings: SynthesizerSettings;
  textQaTemplate: BasePromptTemplate;
  /** The multimodal QA prompt (nodes with images). */
  chatContentQaTemplate: BasePromptTemplate;
  outputSchema: ZodType<T> | undefined;
}

/**
 * `simple_summarize`: one call over the chunks joined with `"\n"` and truncated once to the context the prompt
 * leaves, as LlamaIndex does: nodes stay in order, later ones are dropped first, and the cut is at a word
 * boundary unless that wastes more than the 5-token padding (then at a token boundary). Truncation is this
 * mode's documented behaviour and is reported (`truncatedTokens` on the `pack` event); it throws only when not
 * even one token of context fits. Differs from LlamaIndex: the context is plain text (not a list repr), the
 * cut is checked inside the rendered prompt, and `outputSchema` is honoured.
 */
export function createSimpleSummarizeSynthesizer<T>(
  options: SimpleSummarizeModeOptions<T>,
): ResponseSynthesizer<T> {
  return createSynthesizer<T>({
    ...options.settings,
    mode: "simple_summarize",
    prompts: {
      text_qa_template: options.textQaTemplate,
      chat_content_qa_template: options.chatContentQaTemplate,
    },
    run: (context) => runSimpleSummarize(context, options.outputSchema),
    runMessages: (context) => runMessageSimpleSummarize(context, options.outputSchema),
  });
}

async function runSimpleSummarize<T>(
  context: SynthesizerContext,
  schema: ZodType<T> | undefined,
): Promise<SynthesizerRunResult<T>> {
  const helper = context.promptHelper;
  const template = context.prompts.text_qa_template as BasePromptTemplate;
  const { responseFormat, budget } = await modeBudget(context, schema, { query_str: context.query });
  // With a frame the cut is checked inside the rendered prompt, so the padding is not needed for safety.
  const frame = helper.createPromptFrame(template, budget);
  const available = helper.getAvailableChunkSize(template, frame ? { ...budget, padding: 0 } : budget);
  const joined = context.chunks
    .map((chunk) => chunk.trim())
    .filter((chunk) => chunk !== "")
    .join("\n");
  const packer = helper.createPacker([joined]);
  const piece = packer.nextPiece(available, { frame, maxWaste: DEFAULT_PADDING });
  const truncatedTokens = packer.done ? 0 : packer.remainingTokens;
  const contextText = piece?.text ?? "";
  reportPack(context, {
    round: 0,
    chunkTokens: piece ? [piece.tokens] : [],
    availableChunkSize: available,
    truncatedTokens,
  });
  const { text } = await context.stream(
    template,
    { query_str: context.query, context_str: contextText },
    { step: { kind: "simple_summarize" }, context: contextText, responseFormat },
  );
  if (schema) return { text, object: parseObject(text, schema) };
  return { text: text === "" ? context.emptyResponse : text };
}
