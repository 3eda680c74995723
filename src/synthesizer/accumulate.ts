import type { ZodType } from "zod";
import type { JsonSchemaFormat } from "../llm/types.js";
import type { SynthesizerCallOptions } from "../model-call/call-model.js";
import { parseObject } from "../prompt/predict.js";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import { contentLane } from "./content-lane.js";
import {
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "./create-synthesizer.js";
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
    imageNodes: "blocks",
    run: (context) => runAccumulate(context, options),
  });
}

async function runAccumulate<T>(
  context: SynthesizerContext,
  options: AccumulateModeOptions<T>,
): Promise<SynthesizerRunResult<T>> {
  const { query } = context;
  const lane = contentLane(context);
  const template = lane.template("qa");
  const { responseFormat, budget } = await modeBudget(context, options.outputSchema, { query_str: query });
  const available = lane.size(template, budget, "context_str");
  if (lane.images) lane.checkImages(available);
  const pieces = lane.repack(template, budget, options.mode !== "compact_accumulate");
  reportPack(context, {
    round: 0,
    chunkTokens: pieces.map((piece) => piece.tokens),
    availableChunkSize: available,
  });
  return answerEach(
    context,
    options,
    template,
    responseFormat,
    pieces.map((piece) => {
      const placed = lane.place(piece, "context_str");
      return { variables: { query_str: query, ...placed.values }, call: placed.call };
    }),
  );
}

/** One accumulate call's input: its variables, and where its piece goes (text context or blocks). */
interface AccumulatePiece {
  variables: TemplateVariables;
  call: Partial<SynthesizerCallOptions>;
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
        ...piece.call,
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
