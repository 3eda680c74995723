import type { ZodType } from "zod";
import { imagesOverflow } from "../budget/content-packer.js";
import { DEFAULT_PADDING } from "../budget/prompt-helper.js";
import type { PromptFrame } from "../budget/text-packer.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { parseObject } from "../prompt/predict.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import type { ContentBlock, ImageBlock } from "../schema/content-block.js";
import { type ContentLane, contentLane, nodeOfBlock, type PackedContent } from "./content-lane.js";
import {
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "./create-synthesizer.js";
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
    imageNodes: "blocks",
    run: (context) => runSimpleSummarize(context, options.outputSchema),
  });
}

async function runSimpleSummarize<T>(
  context: SynthesizerContext,
  schema: ZodType<T> | undefined,
): Promise<SynthesizerRunResult<T>> {
  const lane = contentLane(context);
  const template = lane.template("qa");
  const { responseFormat, budget } = await modeBudget(context, schema, { query_str: context.query });
  const { available, frame } = lane.room(template, budget, "context_str");
  const { piece, truncatedTokens } = lane.images
    ? takeWithImages(context, lane, available)
    : takeText(context, available, frame);
  reportPack(context, {
    round: 0,
    chunkTokens: piece ? [piece.tokens] : [],
    availableChunkSize: available,
    truncatedTokens,
  });
  const placed = lane.place(piece ?? { blocks: [], tokens: 0 }, "context_str");
  const { text } = await context.stream(
    template,
    { query_str: context.query, ...placed.values },
    { ...placed.call, tokens: undefined, step: { kind: "simple_summarize" }, responseFormat },
  );
  if (schema) return { text, object: parseObject(text, schema) };
  return { text: text === "" ? context.emptyResponse : text };
}

/** The chunks joined with `"\n"`, cut once inside the prompt's frame at a word, or a token when that wastes less. */
function takeText(
  context: SynthesizerContext,
  available: number,
  frame: PromptFrame | undefined,
): { piece: PackedContent | undefined; truncatedTokens: number } {
  const kept: string[] = [];
  // Where each kept node starts in the joined text, so the cut tells which nodes went in.
  const starts: Array<{ node: number; at: number }> = [];
  let length = 0;
  for (const [node, chunk] of context.chunks.entries()) {
    const trimmed = chunk.trim();
    if (trimmed === "") continue;
    if (kept.length > 0) length += 1;
    starts.push({ node, at: length });
    kept.push(trimmed);
    length += trimmed.length;
  }
  const packer = context.promptHelper.createPacker([kept.join("\n")]);
  const piece = packer.nextPiece(available, { frame, maxWaste: DEFAULT_PADDING });
  const sources = piece ? starts.filter(({ at }) => at < piece.text.length).map(({ node }) => node) : [];
  return {
    piece: piece && { blocks: [{ type: "text", text: piece.text }], tokens: piece.tokens, sources },
    truncatedTokens: packer.done ? 0 : packer.remainingTokens,
  };
}

/**
 * Every image (whole) and as much of the text, in order, as the room the images leave; text that does not fit
 * is cut off at the end, as in {@link takeText}.
 * @throws ContextOverflowError before the call naming an image that does not fit alone, or the images together
 */
function takeWithImages(
  context: SynthesizerContext,
  lane: ContentLane,
  available: number,
): { piece: PackedContent; truncatedTokens: number } {
  const helper = context.promptHelper;
  const images = context.blocks.filter((block): block is ImageBlock => block.type === "image");
  const imageTokens = helper.countBlocks(images);
  // Every image goes in the one call: each must fit alone (the one that does not is named), then all together.
  lane.checkImages(available);
  if (imageTokens > available) {
    throw imagesOverflow(images, imageTokens, available, {
      contextWindow: helper.contextWindow,
      numOutput: helper.numOutput,
    });
  }
  let room = available - imageTokens;
  let truncatedTokens = 0;
  const blocks: ContentBlock[] = [];
  const nodeOf = nodeOfBlock(context);
  const sources = new Set<number>();
  for (const [index, block] of context.blocks.entries()) {
    if (block.type === "image") {
      blocks.push(block);
      sources.add(nodeOf[index] as number);
      continue;
    }
    const piece = room >= 1 ? startOf(context, block, room) : undefined;
    if (piece && piece.blocks.length > 0) {
      blocks.push(...piece.blocks);
      room -= piece.tokens;
      sources.add(nodeOf[index] as number);
    }
    truncatedTokens += helper.countBlocks([block]) - (piece?.tokens ?? 0);
  }
  return {
    piece: { blocks, tokens: helper.countBlocks(blocks), sources: [...sources].sort((a, b) => a - b) },
    truncatedTokens,
  };
}

/** The start of a text block that fits in `room`, or undefined when not even its first character does. */
function startOf(context: SynthesizerContext, block: ContentBlock, room: number) {
  try {
    return context.promptHelper.createContentPacker([block]).next(room);
  } catch (error) {
    if (RagsynthError.isInstance(error, "context_overflow")) return undefined;
    throw error;
  }
}
