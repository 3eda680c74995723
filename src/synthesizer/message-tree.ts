import type { ZodType } from "zod";
import { parseObject } from "../prompt/predict.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import type { SynthesizerRunResult } from "./create-synthesizer.js";
import { checkImagesFit } from "./message-refine.js";
import { modeBudget, reportPack } from "./mode-budget.js";
import { intermediateSummaryTokens, summarizeLevels } from "./summarize-levels.js";
import type { SynthesizerContext } from "./synthesizer-context.js";

/**
 * `tree_summarize` on the message path: the blocks are packed against the chat content summary prompt and
 * each chunk summarized (at most `concurrency` calls at once); the summaries are text, so the levels above
 * are the text path's. One chunk: a single streamed call.
 */
export async function runMessageTree<T>(
  context: SynthesizerContext,
  schema: ZodType<T> | undefined,
): Promise<SynthesizerRunResult<T>> {
  const { signal } = context;
  const helper = context.chatPromptHelper;
  const template = (context.prompts.chat_content_summary_template as BasePromptTemplate).partialFormat({
    query_str: context.query,
  });
  const { responseFormat, budget } = await modeBudget(context, schema);
  const available = helper.getAvailableContextSize(template, budget);
  checkImagesFit(context, available, context.blocks);
  const chunks = helper.repack(template, context.blocks, budget);
  reportPack(context, {
    round: 0,
    chunkTokens: chunks.map((chunk) => chunk.tokens),
    availableChunkSize: available,
  });
  if (chunks.length <= 1) {
    const { text } = await context.stream(
      template,
      {},
      {
        step: { kind: "tree", level: 0, index: 0, count: 1 },
        content: { variable: "context_str", blocks: chunks[0]?.blocks ?? [] },
        responseFormat,
      },
    );
    if (schema) return { text, object: parseObject(text, schema) };
    return { text: text === "" ? context.emptyResponse : text };
  }
  // Level-0 summaries feed the text levels above, so they get the text path's cap: two fit one text chunk.
  const textTemplate = (context.prompts.summary_template as BasePromptTemplate).partialFormat({
    query_str: context.query,
  });
  const summaryTokens = intermediateSummaryTokens(
    context,
    context.promptHelper.getAvailableChunkSize(textTemplate, budget),
  );
  const summaries = await mapConcurrent(
    chunks,
    context.concurrency,
    signal,
    async (chunk, index, taskSignal) => {
      const { text } = await context.call(
        template,
        {},
        {
          step: { kind: "tree", level: 0, index, count: chunks.length },
          content: { variable: "context_str", blocks: chunk.blocks },
          responseFormat,
          signal: taskSignal,
          ...(summaryTokens === undefined ? {} : { maxTokens: summaryTokens }),
        },
      );
      return schema ? JSON.stringify(parseObject(text, schema)) : text;
    },
  );
  return summarizeLevels(context, schema, summaries, 1, chunks.length);
}
