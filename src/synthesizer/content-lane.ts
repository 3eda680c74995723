import type { BudgetOptions } from "../budget/budget-options.js";
import { type ContentChunk, imageOverflow } from "../budget/content-packer.js";
import type { PromptFrame } from "../budget/text-packer.js";
import type { SynthesizerCallOptions } from "../model-call/call-model.js";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import type { ContentBlock } from "../schema/content-block.js";
import { nodesToBlocks } from "../schema/nodes-to-blocks.js";
import type { SynthesizerContext } from "./synthesizer-context.js";

/** A piece of a run's content packed for one call: text blocks (a text-only run has one) and images. */
export interface PackedContent {
  blocks: ContentBlock[];
  /** The blocks' tokens, each on its own (text by the tokenizer, images by the model's rule). */
  tokens: number;
  /** The whole prompt's tokens with this piece in it, when the packer checked it inside its exact frame. */
  promptTokens?: number | undefined;
  /**
   * Indexes of what the packer put in this piece, whole or in part: the run's nodes (a lane's pieces), or the
   * inputs of a repack (a tree level's summaries). Absent for a piece built by hand.
   */
  sources?: readonly number[] | undefined;
}

/** Takes content off the front of a run's blocks, one budget at a time: text may be cut, images never. */
export interface ContentTaker {
  readonly done: boolean;
  next(
    available: number,
    options?: { frame?: PromptFrame | undefined; maxWaste?: number },
  ): PackedContent | undefined;
}

/** The prompts of a run, by role; the chat content ones when the run holds images. */
export type PromptRole = "qa" | "refine" | "summary";

const PROMPT_KEYS: Record<PromptRole, [text: string, content: string]> = {
  qa: ["text_qa_template", "chat_content_qa_template"],
  refine: ["refine_template", "chat_content_refine_template"],
  summary: ["summary_template", "chat_content_summary_template"],
};

/**
 * The one way a mode sees its content. A text-only run is its nodes' text, one text block a node, packed by
 * the text packer inside each prompt's exact rendered frame; a run with images is its text and image blocks,
 * packed by the content packer (whole images, text cut) against the chat content prompts. A mode written
 * against this is written once for both.
 */
export interface ContentLane {
  /** True when the run holds images (or the synthesizer was built multimodal). */
  readonly images: boolean;
  /** The run's prompt for a role: `text_qa_template` or, with images, `chat_content_qa_template` (and so on). */
  template(role: PromptRole): BasePromptTemplate;
  /** One taker over all the content (compact), or one per node (refine, accumulate). */
  takers(perNode: boolean): ContentTaker[];
  /**
   * The room for content in `template` with `budget`'s values, and (text only) the exact frame to pack in.
   * With a frame the padding is not needed for safety, so it is left out of the room.
   * @throws ContextOverflowError when the prompt leaves no room
   */
  room(
    template: BasePromptTemplate,
    budget: BudgetOptions,
    variable: string,
  ): { available: number; frame?: PromptFrame };
  /** The chunk size {@link repack} packs to: the room with the padding kept (no frame). */
  size(template: BasePromptTemplate, budget: BudgetOptions, variable: string): number;
  /** Packs everything against one prompt into as few pieces as fit (tree level 0, accumulate). */
  repack(template: BasePromptTemplate, budget: BudgetOptions, perNode: boolean): PackedContent[];
  /**
   * @throws ContextOverflowError naming the first image (of those not in `except`) that does not fit `room` on its
   * own; `beside` names the prompt the room is beside when it is not the plain one.
   */
  checkImages(room: number, options?: { except?: ReadonlySet<ContentBlock>; beside?: string }): void;
  /** The variables and call options that put `piece` where `variable` is. */
  place(
    piece: PackedContent,
    variable: string,
  ): { values: TemplateVariables; call: Partial<SynthesizerCallOptions> };
}

/** The context's blocks for each node, in order (image sizes as prepared). */
function blocksPerNode(context: SynthesizerContext): ContentBlock[][] {
  let next = 0;
  return context.nodes.map((entry) => {
    const count = nodesToBlocks([entry]).length;
    const blocks = context.blocks.slice(next, next + count);
    next += count;
    return blocks;
  });
}

/** The node each of the context's blocks comes from, by block index. */
export function nodeOfBlock(context: SynthesizerContext): number[] {
  return blocksPerNode(context).flatMap((blocks, node) => blocks.map(() => node));
}

/** The ids of the run's nodes at `indexes`. */
function nodeIds(context: SynthesizerContext, indexes: readonly number[] | undefined): string[] | undefined {
  return indexes?.map((index) => context.nodes[index]?.node.id ?? String(index));
}

/** The lane of a run: images when the context has taken the message path, else text. */
export function contentLane(context: SynthesizerContext): ContentLane {
  const images = context.multimodal;
  const template = (role: PromptRole) =>
    context.prompts[PROMPT_KEYS[role][images ? 1 : 0]] as BasePromptTemplate;
  return images ? imageLane(context, template) : textLane(context, template);
}

function textLane(context: SynthesizerContext, template: ContentLane["template"]): ContentLane {
  const helper = context.promptHelper;
  // `offset` turns a per-node packer's chunk index (always 0) into the node's index.
  const toContent = (
    piece: { text: string; tokens: number; promptTokens?: number; sources: number[] },
    offset = 0,
  ): PackedContent => ({
    blocks: [{ type: "text", text: piece.text }],
    tokens: piece.tokens,
    ...(piece.promptTokens === undefined ? {} : { promptTokens: piece.promptTokens }),
    sources: offset === 0 ? piece.sources : piece.sources.map((index) => index + offset),
  });
  return {
    images: false,
    template,
    takers(perNode) {
      const packers = perNode
        ? context.chunks.map((chunk) => helper.createPacker([chunk]))
        : [helper.createPacker([...context.chunks])];
      return packers.map((packer, offset) => ({
        get done() {
          return packer.done;
        },
        next(available, options = {}) {
          const piece = packer.nextPiece(available, options);
          return piece && toContent(piece, offset);
        },
      }));
    },
    room(prompt, budget) {
      const frame = helper.createPromptFrame(prompt, budget);
      const available = helper.getAvailableChunkSize(prompt, frame ? { ...budget, padding: 0 } : budget);
      return frame ? { available, frame } : { available };
    },
    size: (prompt, budget) => helper.getAvailableChunkSize(prompt, budget),
    repack(prompt, budget, perNode) {
      const groups = perNode ? context.chunks.map((chunk) => [chunk]) : [context.chunks];
      return groups.flatMap((chunks, offset) =>
        helper.repackWithTokens(prompt, chunks, budget).map((piece) => toContent(piece, offset)),
      );
    },
    checkImages() {},
    place(piece, variable) {
      const placed = textPlacer.place(piece, variable);
      const ids = nodeIds(context, piece.sources);
      return ids ? { ...placed, call: { ...placed.call, nodeIds: ids } } : placed;
    },
  };
}

/** Places a text piece as its variable's value, with the packer's exact counts when it has them. */
export const textPlacer: Pick<ContentLane, "place"> = {
  place(piece, variable) {
    const text = piece.blocks.map((block) => (block.type === "text" ? block.text : "")).join("");
    return {
      values: { [variable]: text },
      call: {
        context: text,
        tokens:
          piece.promptTokens === undefined
            ? undefined
            : { prompt: piece.promptTokens, context: piece.tokens },
      },
    };
  },
};

function imageLane(context: SynthesizerContext, template: ContentLane["template"]): ContentLane {
  const helper = context.promptHelper;
  const nodeOf = nodeOfBlock(context);
  // A chunk's block indexes (`offset`: where its packer's blocks start in the run's) as node indexes, once each.
  const toContent = (chunk: ContentChunk, offset: number): PackedContent => ({
    blocks: chunk.blocks,
    tokens: chunk.tokens,
    sources: [...new Set((chunk.sources ?? []).map((index) => nodeOf[index + offset] as number))],
  });
  const groupsOf = (perNode: boolean) => {
    if (!perNode) return [{ blocks: [...context.blocks], offset: 0 }];
    let offset = 0;
    return blocksPerNode(context).map((blocks) => {
      const group = { blocks, offset };
      offset += blocks.length;
      return group;
    });
  };
  const limits = () => ({ contextWindow: helper.contextWindow, numOutput: helper.numOutput });
  const size = (prompt: BasePromptTemplate, budget: BudgetOptions, variable: string) =>
    helper.getAvailableContentSize(prompt, { ...budget, contextVariable: variable });
  return {
    images: true,
    template,
    takers(perNode) {
      return groupsOf(perNode).map(({ blocks, offset }) => {
        const packer = helper.createContentPacker(blocks);
        return {
          get done() {
            return packer.done;
          },
          next: (available) => {
            const chunk = packer.next(available);
            return chunk && toContent(chunk, offset);
          },
        };
      });
    },
    room(prompt, budget, variable) {
      return { available: size(prompt, budget, variable) };
    },
    size,
    repack(prompt, budget, perNode) {
      return groupsOf(perNode).flatMap(({ blocks, offset }) =>
        helper.repackContent(prompt, blocks, budget).map((chunk) => toContent(chunk, offset)),
      );
    },
    checkImages(room, { except, beside } = {}) {
      for (const block of context.blocks) {
        if (block.type !== "image" || except?.has(block)) continue;
        const tokens = helper.countImage(block);
        if (tokens > room) throw imageOverflow(block, tokens, room, limits(), beside);
      }
    },
    place(piece, variable) {
      const ids = nodeIds(context, piece.sources);
      return {
        values: {},
        call: { content: { variable, blocks: piece.blocks }, ...(ids ? { nodeIds: ids } : {}) },
      };
    },
  };
}
