import type { ZodType } from "zod";
import { imagesOverflow } from "../budget/content-packer.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { parseObject } from "../prompt/predict.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import type { ContentBlock, ImageBlock } from "../schema/content-block.js";
import type { SynthesizerRunResult } from "./create-synthesizer.js";
import { checkImagesFit } from "./message-refine.js";
import { modeBudget, reportPack } from "./mode-budget.js";
import type { SynthesizerContext } from "./synthesizer-context.js";

/**
 * `simple_summarize` on the message path: one call with every image (whole) and as much of the text, in
 * order, as the room the images leave; text that does not fit is cut off at the end, as on the text path.
 * @throws ContextOverflowError before the call when the images alone do not fit
 */
export async function runMessageSimpleSummarize<T>(
  context: SynthesizerContext,
  schema: ZodType<T> | undefined,
): Promise<SynthesizerRunResult<T>> {
  const helper = context.chatPromptHelper;
  const template = context.prompts.chat_content_qa_template as BasePromptTemplate;
  const { responseFormat, budget } = await modeBudget(context, schema, { query_str: context.query });
  const available = helper.getAvailableContextSize(template, budget);
  const images = context.blocks.filter((block) => block.type === "image");
  const imageTokens = helper.countBlocks(images);
  // Every image goes in the one call: each must fit alone (the one that does not is named), then all together.
  checkImagesFit(context, available, images);
  if (imageTokens > available) {
    throw imagesOverflow(images as ImageBlock[], imageTokens, available, {
      contextWindow: helper.contextWindow,
      numOutput: helper.numOutput,
    });
  }
  let room = available - imageTokens;
  let truncatedTokens = 0;
  const blocks: ContentBlock[] = [];
  for (const block of context.blocks) {
    if (block.type === "image") {
      blocks.push(block);
      continue;
    }
    const piece = room >= 1 ? takeText(context, block, room) : undefined;
    if (piece) {
      blocks.push(...piece.blocks);
      room -= piece.tokens;
    }
    const whole = helper.countBlocks([block]);
    truncatedTokens += whole - (piece?.tokens ?? 0);
  }
  reportPack(context, {
    round: 0,
    chunkTokens: [helper.countBlocks(blocks)],
    availableChunkSize: available,
    truncatedTokens,
  });
  const { text } = await context.stream(
    template,
    { query_str: context.query },
    { step: { kind: "simple_summarize" }, content: { variable: "context_str", blocks }, responseFormat },
  );
  if (schema) return { text, object: parseObject(text, schema) };
  return { text: text === "" ? context.emptyResponse : text };
}

/** The start of a text block that fits in `room`, or undefined when not even its first character does. */
function takeText(context: SynthesizerContext, block: ContentBlock, room: number) {
  try {
    return context.chatPromptHelper.createPacker([block]).next(room);
  } catch (error) {
    if (RagsynthError.isInstance(error, "context_overflow")) return undefined;
    throw error;
  }
}
