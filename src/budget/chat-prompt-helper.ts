import { optionsOf } from "../errors/check-options.js";
import { checkLLMMetadata } from "../llm/check-model.js";
import type { ImageTokenRule, LLMMetadata } from "../llm/types.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import type { PromptTokenCount } from "../prompt/render-prompt.js";
import type { ContentBlock, ImageBlock } from "../schema/content-block.js";
import type { ChatBudgetOptions } from "./content-budget.js";
import type { ContentChunk, ContentPacker } from "./content-packer.js";
import { PromptHelper } from "./prompt-helper.js";

export type { ChatBudgetOptions } from "./content-budget.js";

/** Options of {@link ChatPromptHelper}. */
export interface ChatPromptHelperOptions {
  /** The text budget it builds on: window, output reserve, tokenizer. @default new PromptHelper() */
  promptHelper?: PromptHelper | undefined;
  /** What an image costs. @default the helper's own rule, else { kind: "openai" } */
  imageTokens?: ImageTokenRule | undefined;
}

/**
 * LlamaIndex's `ChatPromptHelper`, kept as a thin alias: `PromptHelper` now counts images itself
 * (`countImage`, `countBlocks`, `countContentPrompt`, `getAvailableContentSize`, `createContentPacker`,
 * `repackContent`), and every method here answers through it.
 * @deprecated Use `PromptHelper` (with `imageTokens`, or `PromptHelper.fromLLMMetadata(metadata)`, which reads
 *   the model's rule). `getAvailableContextSize(prompt, options)` here is `getAvailableContentSize` there (the
 *   name `getAvailableContextSize` on PromptHelper takes a token count).
 */
export class ChatPromptHelper {
  readonly promptHelper: PromptHelper;
  readonly imageTokens: ImageTokenRule;
  readonly #helper: PromptHelper;

  constructor(options: ChatPromptHelperOptions = {}) {
    const { promptHelper = new PromptHelper(), imageTokens } = optionsOf(
      "options",
      options,
      "{ promptHelper?, imageTokens? }",
    );
    this.promptHelper = promptHelper;
    this.imageTokens = imageTokens ?? promptHelper.imageTokens ?? { kind: "openai" };
    this.#helper =
      promptHelper.imageTokens === this.imageTokens
        ? promptHelper
        : promptHelper.withImageTokens(this.imageTokens);
  }

  /** A helper for a model: its text budget (see `PromptHelper.fromLLMMetadata`) and its image-token rule. */
  static fromLLMMetadata(metadata: LLMMetadata, promptHelper?: PromptHelper): ChatPromptHelper {
    checkLLMMetadata(metadata);
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

  /** See `PromptHelper.countImage`. */
  countImage(image: ImageBlock): number {
    return this.#helper.countImage(image);
  }

  /** See `PromptHelper.countBlocks`. */
  countBlocks(blocks: readonly ContentBlock[]): number {
    return this.#helper.countBlocks(blocks);
  }

  /** See `PromptHelper.assumptionsFor`. */
  assumptionsFor(blocks: readonly ContentBlock[]): string[] {
    return this.#helper.assumptionsFor(blocks);
  }

  /** See `PromptHelper.countContentPrompt`. */
  countPrompt(prompt: BasePromptTemplate, options: ChatBudgetOptions = {}): PromptTokenCount {
    return this.#helper.countContentPrompt(prompt, options);
  }

  /** See `PromptHelper.getAvailableContentSize`. @throws ContextOverflowError when nothing is left */
  getAvailableContextSize(prompt: BasePromptTemplate, options: ChatBudgetOptions = {}): number {
    return this.#helper.getAvailableContentSize(prompt, options);
  }

  /** See `PromptHelper.createContentPacker`. */
  createPacker(blocks: readonly ContentBlock[]): ContentPacker {
    return this.#helper.createContentPacker(blocks);
  }

  /** See `PromptHelper.repackContent`. */
  repack(
    prompt: BasePromptTemplate,
    blocks: readonly ContentBlock[],
    options: ChatBudgetOptions = {},
  ): ContentChunk[] {
    return this.#helper.repackContent(prompt, blocks, options);
  }
}
