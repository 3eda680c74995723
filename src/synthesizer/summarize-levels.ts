import type { ZodType } from "zod";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { parseObject } from "../prompt/predict.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import { contentLane, type PackedContent, textPlacer } from "./content-lane.js";
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
 * The tree: pack the run's content against the summary prompt (with images: the chat content summary prompt,
 * images whole), summarize each packed chunk, and repeat on the summaries (text) until one chunk is left.
 */
export async function summarizeLevels<T>(
  context: SynthesizerContext,
  schema: ZodType<T> | undefined,
): Promise<SynthesizerRunResult<T>> {
  const { signal } = context;
  const helper = context.promptHelper;
  const lane = contentLane(context);
  const withQuery = (prompt: BasePromptTemplate) => prompt.partialFormat({ query_str: context.query });
  const textTemplate = withQuery(context.prompts.summary_template as BasePromptTemplate);
  const leafTemplate = withQuery(lane.template("summary"));
  const { responseFormat, budget } = await modeBudget(context, schema);
  // Summaries are text: two must fit one text chunk of the levels above, whatever level 0 packed.
  const available = helper.getAvailableChunkSize(textTemplate, budget);
  const summaryTokens = intermediateSummaryTokens(context, available);
  const leafAvailable = lane.images ? lane.size(leafTemplate, budget, "context_str") : available;
  if (lane.images) lane.checkImages(leafAvailable);
  let chunks: readonly string[] = [];
  // The calls that wrote `chunks`, by index: a level above names the ones its piece holds.
  let callIds: readonly string[] = [];
  let previousCount = Number.POSITIVE_INFINITY;

  for (let level = 0; ; level += 1) {
    signal.throwIfAborted();
    const template = level === 0 ? leafTemplate : textTemplate;
    // The packer knows each piece's exact count, so no piece is tokenized again before the calls go out.
    const pieces: PackedContent[] =
      level === 0
        ? lane.repack(leafTemplate, budget, false)
        : helper.repackWithTokens(textTemplate, chunks, budget).map((piece) => ({
            blocks: [{ type: "text", text: piece.text }],
            tokens: piece.tokens,
            promptTokens: piece.promptTokens,
            sources: piece.sources,
          }));
    const place = (piece: PackedContent | undefined) => {
      const empty: PackedContent = { blocks: [], tokens: 0 };
      if (level === 0) return lane.place(piece ?? empty, "context_str");
      const placed = textPlacer.place(piece ?? empty, "context_str");
      const inputCallIds = (piece?.sources ?? []).map((index) => callIds[index] as string);
      return { ...placed, call: { ...placed.call, inputCallIds } };
    };
    if (
      level === 0 &&
      pieces.length > 1 &&
      summaryTokens !== undefined &&
      summaryTokens < MIN_SUMMARY_TOKENS
    ) {
      const { total, parts } = helper.countPrompt(textTemplate, budget);
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
    reportPack(context, {
      round: level,
      chunkTokens: pieces.map((piece) => piece.tokens),
      availableChunkSize: level === 0 ? leafAvailable : available,
    });

    if (pieces.length <= 1) {
      const placed = place(pieces[0]);
      const { text } = await context.stream(template, placed.values, {
        ...placed.call,
        step: { kind: "tree", level, index: 0, count: 1 },
        responseFormat,
      });
      if (schema) return { text, object: parseObject(text, schema) };
      return { text: text === "" ? context.emptyResponse : text };
    }
    if (pieces.length >= previousCount) {
      throw new RagsynthError({
        code: "tree_not_shrinking",
        message:
          `tree_summarize level ${level} packed ${chunks.length} summaries into ${pieces.length} chunks, ` +
          `no fewer than the ${previousCount} chunks of level ${level - 1}, so the tree would never reach one chunk. ` +
          (summaryTokens === undefined
            ? "The summaries are as long as their inputs (does the model echo its prompt?). Set numOutput so summaries are capped."
            : `Each summary was asked for at most ${summaryTokens} tokens so that two fit a ${available}-token chunk: ` +
              "does the model ignore its output limit (max_tokens) or echo its prompt?"),
      });
    }
    const summaries = await mapConcurrent(
      pieces,
      context.concurrency,
      signal,
      async (piece, index, taskSignal) => {
        const placed = place(piece);
        const { text, callId } = await context.call(template, placed.values, {
          ...placed.call,
          step: { kind: "tree", level, index, count: pieces.length },
          responseFormat,
          ...(summaryTokens === undefined ? {} : { maxTokens: summaryTokens }),
          signal: taskSignal,
        });
        // Intermediate summaries travel as JSON when the answer is typed, as in LlamaIndex.
        return { text: schema ? JSON.stringify(parseObject(text, schema)) : text, callId };
      },
    );
    chunks = summaries.map((summary) => summary.text);
    callIds = summaries.map((summary) => summary.callId);
    previousCount = pieces.length;
  }
}
