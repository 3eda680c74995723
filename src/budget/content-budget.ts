import { ContextOverflowError, type PromptTokenParts } from "../errors/context-overflow-error.js";
import type { ImageTokenRule } from "../llm/types.js";
import { checkPrompt } from "../prompt/check-prompt.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { countPromptTokens, type PromptTokenCount, renderPrompt } from "../prompt/render-prompt.js";
import type { ContentBlock, ImageBlock } from "../schema/content-block.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { type BudgetOptions, DEFAULT_PADDING } from "./budget-options.js";
import { type ContentChunk, type ContentPacker, createContentPacker } from "./content-packer.js";
import { countImageTokens } from "./image-tokens.js";

/** Budget options of a prompt with content blocks: the variable its blocks replace, besides {@link BudgetOptions}. */
export interface ChatBudgetOptions extends BudgetOptions {
  /** The template variable the blocks go in. @default "context_str" */
  contextVariable?: string | undefined;
}

/** The parts of a `PromptHelper` the content budget reads. */
export interface ContentBudgetHelper {
  readonly contextWindow: number;
  readonly numOutput: number;
  readonly tokenizer: Tokenizer;
  readonly separator: string;
  getAvailableContextSize(promptTokens: number, parts?: PromptTokenParts): number;
}

/**
 * The budget of prompts that carry content blocks (text and images), for a helper and an image-token rule: text
 * blocks are counted with the tokenizer, images with the rule, and the prompt around them exactly as it is sent
 * (each block its own content part, so counts add up). `PromptHelper` answers through this.
 */
export function contentBudget(helper: ContentBudgetHelper, rule: ImageTokenRule) {
  const countImage = (image: ImageBlock) => countImageTokens(image, rule).tokens;
  const countBlocks = (blocks: readonly ContentBlock[]) => {
    let total = 0;
    for (const block of blocks)
      total += block.type === "text" ? helper.tokenizer.count(block.text) : countImage(block);
    return total;
  };
  const countPrompt = (prompt: BasePromptTemplate, options: ChatBudgetOptions = {}): PromptTokenCount => {
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
    return countPromptTokens(rendered, helper.tokenizer, { llm, systemPrompt, responseFormat, countImage });
  };
  const availableSize = (prompt: BasePromptTemplate, options: ChatBudgetOptions = {}): number => {
    const { padding = DEFAULT_PADDING } = options;
    const { total, parts } = countPrompt(prompt, options);
    const size = helper.getAvailableContextSize(total, parts) - padding;
    if (size <= 0) {
      throw new ContextOverflowError({
        contextWindow: helper.contextWindow,
        numOutput: helper.numOutput,
        promptTokens: total + padding,
        parts,
        hint: `Padding ${padding} leaves no room for content. Raise contextWindow, lower numOutput, or shorten the prompt.`,
      });
    }
    return size;
  };
  const createPacker = (blocks: readonly ContentBlock[]): ContentPacker =>
    createContentPacker({
      blocks,
      tokenizer: helper.tokenizer,
      separator: helper.separator,
      countImage,
      limits: { contextWindow: helper.contextWindow, numOutput: helper.numOutput },
    });
  return {
    countImage,
    countBlocks,
    countPrompt,
    availableSize,
    createPacker,
    /** What was assumed to count these images (unknown sizes, an unstated rule), one line each. */
    assumptionsFor(blocks: readonly ContentBlock[]): string[] {
      const lines = new Set<string>();
      for (const block of blocks) {
        if (block.type !== "image") continue;
        const { assumption } = countImageTokens(block, rule);
        if (assumption) lines.add(assumption);
      }
      return [...lines];
    },
    repack(prompt: BasePromptTemplate, blocks: readonly ContentBlock[], options: ChatBudgetOptions = {}) {
      const available = availableSize(prompt, options);
      const packer = createPacker(blocks);
      const chunks: ContentChunk[] = [];
      for (let chunk = packer.next(available); chunk !== undefined; chunk = packer.next(available))
        chunks.push(chunk);
      return chunks;
    },
  };
}
