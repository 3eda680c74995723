import { ContextOverflowError } from "../errors/context-overflow-error.js";
import type { ImageTokenRule, LLMMetadata } from "../llm/types.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { countPromptTokens, type PromptTokenCount, renderPrompt } from "../prompt/render-prompt.js";
import type { ContentBlock, ImageBlock } from "../schema/content-block.js";
import type { BudgetOptions } from "./budget-options.js";
import { checkPrompt } from "./check-arguments.js";
import { type ContentChunk, type ContentPacker, createContentPacker } from "./content-packer.js";
import { countImageTokens } from "./image-tokens.js";
import { DEFAULT_PADDING, PromptHelper } from "./prompt-helper.js";

/** Budget options of a multimodal prompt: the variable its blocks replace, besides {@link BudgetOptions}. */
export interface ChatBudgetOptions extends BudgetOptions {
  /** The template variable the blocks go in. @default "context_str" */
  contextVariable?: string | undefined;
}

/** Options of {@link ChatPromptHelper}. */
export interface ChatPromptHelperOptions {
  /** The text budget it builds on: window, output reserve, tokenizer. @default new PromptHelper() */
  promptHelper?: PromptHelper | undefined;
  /** What an image costs. @default { kind: "openai" } */
  imageTokens?: ImageTokenRule | undefined;
}

/**
 * LlamaIndex's `ChatPromptHelper`: the budget of a multimodal chat prompt. Text blocks are counted with the
 * tokenizer, images with the model's image-token rule, and the prompt around them exactly as it is sent
 * (each block is its own content part, so counts add up). The window, output reserve and formula are the
 * wrapped {@link PromptHelper}'s.
 * @example
 * const helper = ChatPromptHelper.fromLLMMetadata(llm.metadata);
 * const chunks = helper.repack(CHAT_CONTENT_QA_PROMPT, blocks, { variables: { query_str: "Why?" }, llm });
 */
export class ChatPromptHelper {
  readonly promptHelper: PromptHelper;
  readonly imageTokens: ImageTokenRule;

  constructor({
    promptHelper = new PromptHelper(),
    imageTokens = { kind: "openai" },
  }: ChatPromptHelperOptions = {}) {
    this.promptHelper = promptHelper;
    this.imageTokens = imageTokens;
  }

  /** A helper for a model: its text budget (see `PromptHelper.fromLLMMetadata`) and its image-token rule. */
  static fromLLMMetadata(metadata: LLMMetadata, promptHelper?: PromptHelper): ChatPromptHelper {
    return new ChatPromptHelper({
      promptHelper: promptHelper ?? PromptHelper.fromLLMMetadata(metadata),
      imageTokens: metadata.imageTokens ?? { kind: "openai" },
    });
  }

  get contextWindow(): number {
    return this.promptHelper.contextWindow;
  }

  get numOutput(): number {
    return this.promptHelper.numOutput;
  }

  /** One image's prompt tokens under this helper's rule (see `countImageTokens`). */
  countImage(image: ImageBlock): number {
    return countImageTokens(image, this.imageTokens).tokens;
  }

  /** Blocks' tokens: each text on its own, each image by the rule. */
  countBlocks(blocks: readonly ContentBlock[]): number {
    let total = 0;
    for (const block of blocks) {
      total += block.type === "text" ? this.promptHelper.tokenizer.count(block.text) : this.countImage(block);
    }
    return total;
  }

  /** What this helper assumed to count these images (unknown sizes, an unstated rule), one line each. */
  assumptionsFor(blocks: readonly ContentBlock[]): string[] {
    const lines = new Set<string>();
    for (const block of blocks) {
      if (block.type !== "image") continue;
      const { assumption } = countImageTokens(block, this.imageTokens);
      if (assumption) lines.add(assumption);
    }
    return [...lines];
  }

  /** The prompt's tokens with no blocks in it: template with known values, system prompt, chat wrapping, schema. */
  countPrompt(prompt: BasePromptTemplate, options: ChatBudgetOptions = {}): PromptTokenCount {
    checkPrompt("prompt", prompt);
    const { llm, systemPrompt, responseFormat, variables = {}, contextVariable = "context_str" } = options;
    const rendered = renderPrompt({
      prompt,
      variables,
      llm,
      systemPrompt,
      responseFormat,
      empty: true,
      content: { variable: contextVariable, blocks: [] },
    });
    return countPromptTokens(rendered, this.promptHelper.tokenizer, {
      llm,
      systemPrompt,
      responseFormat,
      countImage: (image) => this.countImage(image),
    });
  }

  /**
   * Tokens left for the blocks of one call: `contextWindow − prompt − numOutput − padding` (the
   * PromptHelper's formula), with the prompt counted as sent.
   * @throws ContextOverflowError when nothing is left
   */
  getAvailableContextSize(prompt: BasePromptTemplate, options: ChatBudgetOptions = {}): number {
    const { padding = DEFAULT_PADDING } = options;
    const { total, parts } = this.countPrompt(prompt, options);
    const size = this.promptHelper.getAvailableContextSize(total, parts) - padding;
    if (size <= 0) {
      throw new ContextOverflowError({
        contextWindow: this.contextWindow,
        numOutput: this.numOutput,
        promptTokens: total + padding,
        parts,
        hint: `Padding ${padding} leaves no room for content. Raise contextWindow, lower numOutput, or shorten the prompt.`,
      });
    }
    return size;
  }

  /** A packer over the blocks, with this helper's tokenizer, separator and image rule. */
  createPacker(blocks: readonly ContentBlock[]): ContentPacker {
    return createContentPacker({
      blocks,
      tokenizer: this.promptHelper.tokenizer,
      separator: this.promptHelper.separator,
      countImage: (image) => this.countImage(image),
      limits: { contextWindow: this.contextWindow, numOutput: this.numOutput },
    });
  }

  /**
   * The blocks packed into as few chunks as fit beside the prompt, in order: text is cut where a chunk ends,
   * an image is never cut, and a [text, image] run that does not fit is split between chunks.
   * @throws ContextOverflowError naming an image that does not fit even alone, before anything is sent
   */
  repack(
    prompt: BasePromptTemplate,
    blocks: readonly ContentBlock[],
    options: ChatBudgetOptions = {},
  ): ContentChunk[] {
    const available = this.getAvailableContextSize(prompt, options);
    const packer = this.createPacker(blocks);
    const chunks: ContentChunk[] = [];
    for (let chunk = packer.next(available); chunk !== undefined; chunk = packer.next(available))
      chunks.push(chunk);
    return chunks;
  }
}
