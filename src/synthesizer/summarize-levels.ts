import type { ZodType } from "zod";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { parseObject } from "../prompt/predict.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import type { SynthesizerRunResult } from "./create-synthesizer.js";
import { modeBudget, reportPack } from "./mode-budget.js";
import type { SynthesizerContext } from "./synthesizer-context.js";

// How repack joins chunks (and so summaries) before cutting them.
const SUMMARY_SEPARATOR = "\n\n";

/** Below this many tokens an intermediate summary says too little to be worth the calls: refuse up front. */
export const MIN_SUMMARY_TOKENS = 16;

/**
 * The most tokens an intermediate summary may take so that two fit a text chunk of `available` tokens;
 * undefined when numOutput is 0 (LlamaIndex's test setting): there is no output limit to share out.
 */
export function intermediateSummaryTokens(
  context: SynthesizerContext,
  available: number,
): number | undefined {
  const helper = context.promptHelper;
  if (helper.numOutput === 0) return undefined;
  return Math.min(helper.numOutput, Math.floor((available - helper.tokenizer.count(SUMMARY_SEPARATOR)) / 2));
}

/**
 * The tree's levels from `startLevel` on, over text chunks: pack, summarize each packed chunk, repeat until
 * one is left. The message path hands its level-0 summaries (text) to this.
 */
export async function summarizeLevels<T>(
  context: SynthesizerContext,
  schema: ZodType<T> | undefined,
  startChunks: readonly string[],
  startLevel: number,
  startCount = Number.POSITIVE_INFINITY,
): Promise<SynthesizerRunResult<T>> {
  const { signal } = context;
  const helper = context.promptHelper;
  const template = (context.prompts.summary_template as BasePromptTemplate).partialFormat({
    query_str: context.query,
  });
  const { responseFormat, budget } = await modeBudget(context, schema);
  let chunks: readonly string[] = startChunks;
  let previousCount = startCount;
  const available = helper.getAvailableChunkSize(template, budget);
  const summaryTokens = intermediateSummaryTokens(context, available);

  for (let level = startLevel; ; level += 1) {
    signal.throwIfAborted();
    // The packer knows each piece's exact count, so no piece is tokenized again before the calls go out.
    const pieces = helper.repackWithTokens(template, chunks, budget);
    const packed = pieces.map((piece) => piece.text);
    if (
      level === 0 &&
      packed.length > 1 &&
      summaryTokens !== undefined &&
      summaryTokens < MIN_SUMMARY_TOKENS
    ) {
      const { total, parts } = helper.countPrompt(template, budget);
      throw new ContextOverflowError({
        contextWindow: helper.contextWindow,
        numOutput: helper.numOutput,
        promptTokens: total,
        parts,
        what: "The summary prompt",
        hint:
          `That leaves chunks of ${available} tokens, so two intermediate summaries may take at most ${summaryTokens} tokens each, ` +
          `below the useful minimum of ${MIN_SUMMARY_TOKENS}. Raise contextWindow, or shorten the query, template or system prompt.`,
      });
    }
    // The packer's exact counts of each prompt and piece, so no call counts its prompt again.
    const tokensOf = (index: number) => {
      const piece = pieces[index];
      return piece?.promptTokens === undefined
        ? undefined
        : { prompt: piece.promptTokens, context: piece.tokens };
    };
    reportPack(context, {
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
          (summaryTokens === undefined
            ? "The summaries are as long as their inputs (does the model echo its prompt?). Set numOutput so summaries are capped."
            : `Each summary was asked for at most ${summaryTokens} tokens so that two fit a ${available}-token chunk: ` +
              "does the model ignore its output limit (max_tokens) or echo its prompt?"),
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
          ...(summaryTokens === undefined ? {} : { maxTokens: summaryTokens }),
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
