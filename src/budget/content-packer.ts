import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { type ContentBlock, describeImage, type ImageBlock } from "../schema/content-block.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { createTextPacker, type TextPacker } from "./text-packer.js";

/** One chunk of a multimodal prompt: blocks in order, and their tokens (text on its own, images by the rule). */
export interface ContentChunk {
  blocks: ContentBlock[];
  tokens: number;
  /** Indexes (into the packer's `blocks`) of the blocks this chunk holds, whole or in part, in order. */
  sources?: number[];
}

/** Takes blocks off the front of a list, one budget at a time: text may be cut, images never. */
export interface ContentPacker {
  /**
   * The longest run of the remaining blocks that fits in `maxTokens`: whole images while they fit, text cut
   * where the budget ends (as `TextPacker` cuts it). Undefined when all blocks are taken.
   * @throws ContextOverflowError when the next image does not fit even in an empty chunk
   */
  next(maxTokens: number): ContentChunk | undefined;
  readonly done: boolean;
}

/** What a packer needs: the tokenizer for text, the rule for images, and the budget numbers for errors. */
export interface ContentPackerOptions {
  blocks: readonly ContentBlock[];
  tokenizer: Tokenizer;
  separator: string;
  countImage: (image: ImageBlock) => number;
  /** For the overflow message. */
  limits: { contextWindow: number; numOutput: number };
}

/** Creates a {@link ContentPacker}. Blank text blocks are dropped. */
export function createContentPacker({
  blocks,
  tokenizer,
  separator,
  countImage,
  limits,
}: ContentPackerOptions): ContentPacker {
  let index = 0;
  let text: TextPacker | undefined;
  const skipDone = () => {
    while (index < blocks.length) {
      const block = blocks[index] as ContentBlock;
      if (block.type === "image") return;
      text ??= createTextPacker({ chunks: [block.text], tokenizer, separator, limits });
      if (!text.done) return;
      text = undefined;
      index += 1;
    }
  };
  return {
    get done() {
      skipDone();
      return index >= blocks.length;
    },
    next(maxTokens) {
      skipDone();
      if (index >= blocks.length) return undefined;
      const chunk: ContentChunk = { blocks: [], tokens: 0 };
      const sources: number[] = [];
      while (index < blocks.length) {
        const block = blocks[index] as ContentBlock;
        const room = maxTokens - chunk.tokens;
        if (block.type === "image") {
          const tokens = countImage(block);
          if (tokens > room) {
            if (chunk.blocks.length > 0) break;
            throw imageOverflow(block, tokens, maxTokens, limits);
          }
          chunk.blocks.push(block);
          chunk.tokens += tokens;
          sources.push(index);
          index += 1;
        } else {
          const packer = text as TextPacker;
          if (room < 1 && chunk.blocks.length > 0) break;
          let piece: { text: string; tokens: number } | undefined;
          try {
            piece = packer.nextPiece(room);
          } catch (error) {
            // The next character does not fit in what is left: end this chunk; in an empty one it is an error.
            if (chunk.blocks.length > 0 && RagsynthError.isInstance(error, "context_overflow")) break;
            throw error;
          }
          if (piece !== undefined) {
            chunk.blocks.push({ type: "text", text: piece.text });
            chunk.tokens += piece.tokens;
            sources.push(index);
          }
          if (!packer.done) break;
        }
        skipDone();
      }
      chunk.sources = sources;
      return chunk;
    },
  };
}

/** The error for an image of `tokens` that does not fit the `maxTokens` of context a call has beside its prompt. */
export function imageOverflow(
  image: ImageBlock,
  tokens: number,
  maxTokens: number,
  limits: { contextWindow: number; numOutput: number },
  beside?: string,
): ContextOverflowError {
  return ContextOverflowError.forPiece({
    what: `The ${describeImage(image)}, ${tokens} tokens,${beside ? ` ${beside}` : ""}`,
    tokens,
    room: maxTokens,
    ...limits,
    hint: imageHint(image),
  });
}

/**
 * The error for images that each fit beside the prompt but must all go in one call (`simple_summarize`) and
 * together do not.
 */
export function imagesOverflow(
  images: readonly ImageBlock[],
  tokens: number,
  maxTokens: number,
  limits: { contextWindow: number; numOutput: number },
): ContextOverflowError {
  const canBeLow = images.some((image) => image.detail !== "low");
  return ContextOverflowError.forPiece({
    what: `The ${images.length} images, ${tokens} tokens together,`,
    tokens,
    room: maxTokens,
    ...limits,
    hint:
      "Images cannot be cut and this mode sends them all in one call: " +
      `use a mode that spreads them over calls (compact, tree_summarize), send fewer images${canBeLow ? ', send them with detail "low"' : ""}, raise contextWindow, or lower numOutput.`,
  });
}

/** How to make an image fit: detail "low" only for an image not already sent that way. */
function imageHint(image: ImageBlock): string {
  return image.detail === "low"
    ? "An image cannot be cut, and this one is already sent at low detail: raise contextWindow, lower numOutput, or shorten the prompt."
    : 'An image cannot be cut: send it with detail "low" (85 tokens with OpenAI\'s rule), raise contextWindow, or lower numOutput.';
}
