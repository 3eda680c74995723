import type { ZodType } from "zod";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { parseObject, toResponseFormat } from "../prompt/predict.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import {
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "./create-synthesizer.js";
import type { SynthesizerContext } from "./synthesizer-context.js";
import type { ResponseSynthesizer } from "./types.js";

export interface TreeSummarizeModeOptions<T> {
  settings: SynthesizerSettings;
  summaryTemplate: BasePromptTemplate;
  outputSchema: ZodType<T> | undefined;
}

/**
 * `tree_summarize`: pack the chunks against the summary prompt (query filled in), summarize each packed
 * chunk (at most `concurrency` calls at once), and repeat on the summaries until one chunk is left; that
 * last call streams. Every round must pack into fewer chunks than the one before, or it stops with a
 * `tree_not_shrinking` error. Differs from LlamaIndex: bounded concurrency, and a typed error instead of
 * unbounded recursion when summaries do not shrink.
 */
export function createTreeSummarizeSynthesizer<T>(
  options: TreeSummarizeModeOptions<T>,
): ResponseSynthesizer<T> {
  return createSynthesizer<T>({
    ...options.settings,
    mode: "tree_summarize",
    prompts: { summary_template: options.summaryTemplate },
    run: (context) => runTreeSummarize(context, options.outputSchema),
  });
}

async function runTreeSummarize<T>(
  context: SynthesizerContext,
  schema: ZodType<T> | undefined,
): Promise<SynthesizerRunResult<T>> {
  const { signal, mode } = context;
  const helper = context.promptHelper;
  const template = (context.prompts.summary_template as BasePromptTemplate).partialFormat({
    query_str: context.query,
  });
  const responseFormat = schema ? await toResponseFormat(schema) : undefined;
  const budget = context.budget(responseFormat ? { responseFormat } : {});
  let chunks: readonly string[] = context.chunks;
  let previousCount = Number.POSITIVE_INFINITY;

  for (let level = 0; ; level += 1) {
    signal.throwIfAborted();
    const available = helper.getAvailableChunkSize(template, budget);
    // The packer knows each piece's exact count, so no piece is tokenized again before the calls go out.
    const pieces = helper.repackWithTokens(template, chunks, budget);
    const packed = pieces.map((piece) => piece.text);
    // The packer's exact counts of each prompt and piece, so no call counts its prompt again.
    const tokensOf = (index: number) => {
      const piece = pieces[index];
      return piece?.promptTokens === undefined
        ? undefined
        : { prompt: piece.promptTokens, context: piece.tokens };
    };
    context.emit({
      type: "pack",
      mode,
      round: level,
      chunkTokens: pieces.map((piece) => piece.tokens),
      availableChunkSize: available,
    });

    if (packed.length <= 1) {
      const piece = packed[0] ?? "";
      const { text } = await context.stream(
        template,
        { context_str: piece },
        {
          step: { kind: "tree", level, index: 0, count: 1 },
          context: piece,
          responseFormat,
          tokens: tokensOf(0),
        },
      );
      if (schema) return { text, object: parseObject(text, schema) };
      return { text: text === "" ? context.emptyResponse : text };
    }
    if (packed.length >= previousCount) {
      throw new RagsynthError({
        code: "tree_not_shrinking",
        message:
          `tree_summarize level ${level} packed ${chunks.length} summaries into ${packed.length} chunks, ` +
          `no fewer than the ${previousCount} chunks of level ${level - 1}, so the tree would never reach one chunk. ` +
          "The summaries are as long as their inputs (does the model echo its prompt?). Lower numOutput or raise contextWindow.",
      });
    }
    chunks = await mapConcurrent(packed, context.concurrency, signal, async (chunk, index, taskSignal) => {
      const { text } = await context.call(
        template,
        { context_str: chunk },
        {
          step: { kind: "tree", level, index, count: packed.length },
          context: chunk,
          responseFormat,
          signal: taskSignal,
          tokens: tokensOf(index),
        },
      );
      // Intermediate summaries travel as JSON when the answer is typed, as in LlamaIndex.
      return schema ? JSON.stringify(parseObject(text, schema)) : text;
    });
    previousCount = packed.length;
  }
}
