import type { ZodType } from "zod";
import type { JsonSchemaFormat } from "../llm/types.js";
import { parseObject } from "../prompt/predict.js";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import type { PromptContent } from "../prompt/render-prompt.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import {
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "./create-synthesizer.js";
import { blocksPerNode, checkImagesFit } from "./message-refine.js";
import { modeBudget, reportPack } from "./mode-budget.js";
import type { SynthesizerContext } from "./synthesizer-context.js";
import { createTextChannel, type TextChannel } from "./text-channel.js";
import type { ResponseSynthesizer } from "./types.js";

/** LlamaIndex's accumulate separator. */
export const DEFAULT_ACCUMULATE_SEPARATOR = "\n---------------------\n";

export interface AccumulateModeOptions<T> {
  mode: "accumulate" | "compact_accumulate";
  settings: SynthesizerSettings;
  textQaTemplate: BasePromptTemplate;
  /** The multimodal QA prompt (nodes with images). */
  chatContentQaTemplate: BasePromptTemplate;
  outputSchema: ZodType<T> | undefined;
  separator: string;
}

/**
 * `accumulate` / `compact_accumulate`: one answer per chunk (`accumulate` splits a node only if it does not
 * fit; `compact_accumulate` packs all nodes first), at most `concurrency` calls at once, output as
 * `Response 1: …` joined by `separator`. With `outputSchema`, `object` is the array of typed answers.
 * Differs from LlamaIndex: streaming works (answers stream in order), pieces do not overlap, and typed
 * answers are shown as JSON rather than a Python repr.
 */
export function createAccumulateSynthesizer<T>(options: AccumulateModeOptions<T>): ResponseSynthesizer<T> {
  return createSynthesizer<T>({
    ...options.settings,
    mode: options.mode,
    prompts: {
      text_qa_template: options.textQaTemplate,
      chat_content_qa_template: options.chatContentQaTemplate,
    },
    run: (context) => runAccumulate(context, options),
    runMessages: (context) => runMessageAccumulate(context, options),
  });
}

async function runAccumulate<T>(
  context: SynthesizerContext,
  options: AccumulateModeOptions<T>,
): Promise<SynthesizerRunResult<T>> {
  const { query } = context;
  const { outputSchema: schema } = options;
  const helper = context.promptHelper;
  const template = context.prompts.text_qa_template as BasePromptTemplate;
  const { responseFormat, budget } = await modeBudget(context, schema, { query_str: query });
  const available = helper.getAvailableChunkSize(template, budget);
  const pieces =
    options.mode === "compact_accumulate"
      ? helper.repack(template, context.chunks, budget)
      : context.chunks.flatMap((chunk) => helper.repack(template, [chunk], budget));
  reportPack(context, {
    round: 0,
    chunkTokens: pieces.map((piece) => helper.tokenizer.count(piece)),
    availableChunkSize: available,
  });

  return answerEach(
    context,
    options,
    template,
    responseFormat,
    pieces.map((piece) => ({ context: piece, variables: { query_str: query, context_str: piece } })),
  );
}

/** One accumulate call's input: its variables, and its text context or its blocks. */
interface AccumulatePiece {
  variables: TemplateVariables;
  context?: string;
  content?: PromptContent;
}

/** `accumulate` / `compact_accumulate` on the message path: blocks packed per node or across nodes, one call per chunk. */
export async function runMessageAccumulate<T>(
  context: SynthesizerContext,
  options: AccumulateModeOptions<T>,
): Promise<SynthesizerRunResult<T>> {
  const { query, mode } = context;
  const helper = context.chatPromptHelper;
  const template = context.prompts.chat_content_qa_template as BasePromptTemplate;
  const { responseFormat, budget } = await modeBudget(context, options.outputSchema, { query_str: query });
  const available = helper.getAvailableContextSize(template, budget);
  checkImagesFit(context, available, context.blocks);
  const chunks =
    mode === "compact_accumulate"
      ? helper.repack(template, context.blocks, budget)
      : blocksPerNode(context).flatMap((blocks) => helper.repack(template, blocks, budget));
  reportPack(context, {
    round: 0,
    chunkTokens: chunks.map((chunk) => chunk.tokens),
    availableChunkSize: available,
  });
  return answerEach(
    context,
    options,
    template,
    responseFormat,
    chunks.map((chunk) => ({
      variables: { query_str: query },
      content: { variable: "context_str", blocks: chunk.blocks },
    })),
  );
}

/** One call per piece, at most `concurrency` at once, streamed in order; `Response N: …` joined by the separator. */
async function answerEach<T>(
  context: SynthesizerContext,
  options: AccumulateModeOptions<T>,
  template: BasePromptTemplate,
  responseFormat: JsonSchemaFormat | undefined,
  pieces: readonly AccumulatePiece[],
): Promise<SynthesizerRunResult<T>> {
  const { signal, emptyResponse } = context;
  const { outputSchema: schema, separator } = options;
  const channels: TextChannel[] = context.streaming ? pieces.map(() => createTextChannel("answer")) : [];
  const answers = mapConcurrent(pieces, context.concurrency, signal, async (piece, index, taskSignal) => {
    const channel = channels[index];
    try {
      const { text } = await context.call(template, piece.variables, {
        step: { kind: "accumulate", index, count: pieces.length },
        ...(piece.context === undefined ? {} : { context: piece.context }),
        ...(piece.content === undefined ? {} : { content: piece.content }),
        responseFormat,
        signal: taskSignal,
        ...(channel ? { onDelta: (delta: string) => void channel.push(delta) } : {}),
      });
      const object = schema ? parseObject(text, schema) : undefined;
      channel?.close();
      return { text, object };
    } catch (error) {
      channel?.fail(error);
      throw error;
    }
  }).catch((error: unknown) => {
    for (const channel of channels) channel.fail(error);
    throw error;
  });

  const label = (index: number) => `${index > 0 ? separator : ""}Response ${index + 1}: `;
  const writing = (async () => {
    for (const [index, channel] of channels.entries()) {
      context.write(label(index));
      let empty = true;
      for await (const delta of channel.iterable) {
        empty = false;
        context.write(delta);
      }
      if (empty) context.write(emptyResponse);
    }
  })();
  // The pool's error is the one to report; the writer only fails because the pool did.
  writing.catch(() => {});
  const results = await answers;
  await writing;

  const text = results.map((result, index) => `${label(index)}${result.text || emptyResponse}`).join("");
  return schema ? { text, object: results.map((result) => result.object) as T } : { text };
}
