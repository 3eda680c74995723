import { checkInteger } from "../errors/check-integer.js";
import { optionsOf } from "../errors/check-options.js";
import { ContextOverflowError, type PromptTokenParts } from "../errors/context-overflow-error.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkLLMMetadata } from "../llm/check-model.js";
import {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_NUM_OUTPUT,
  type ImageTokenRule,
  type LLMMetadata,
} from "../llm/types.js";
import { checkPrompt } from "../prompt/check-prompt.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { countPromptTokens, type PromptTokenCount, renderPrompt } from "../prompt/render-prompt.js";
import {
  type ContentBlock,
  checkContentBlock,
  checkContentBlocks,
  type ImageBlock,
} from "../schema/content-block.js";
import { TokenTextSplitter } from "../splitter/token-text-splitter.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer, TokenizerLike } from "../tokenizer/tokenizer.js";
import { type BudgetOptions, DEFAULT_PADDING } from "./budget-options.js";
import { type ChatBudgetOptions, contentBudget } from "./content-budget.js";
import type { ContentChunk, ContentPacker } from "./content-packer.js";
import { createPromptFrame, packChunksGreedily } from "./repack.js";
import { createTextPacker, type PackedPiece, type PromptFrame, type TextPacker } from "./text-packer.js";
import { truncateChunks } from "./truncate-chunks.js";

export { DEFAULT_PADDING } from "./budget-options.js";
/** LlamaIndex's default overlap between the chunks of a splitter built for a prompt. */
export const DEFAULT_CHUNK_OVERLAP_RATIO = 0.1;

/**
 * The output reserve, one policy for the library and the CLI: `numOutput` (LlamaIndex's default 256, or what
 * you set) tokens are kept free for the answer and sent as each call's `maxTokens`, so the budget really holds.
 * A model's stated `maxOutputTokens` only caps it (a model that can write 16,384 tokens still reserves 256).
 * A default that would fill the whole window (a 100-token window) is cut to a quarter of it.
 */
export function reserveOutput(
  metadata: Pick<LLMMetadata, "maxOutputTokens" | "contextWindow">,
  numOutput?: number,
): number {
  const limit = metadata.maxOutputTokens;
  const cap =
    typeof limit === "number" && Number.isInteger(limit) && limit > 0 ? limit : Number.POSITIVE_INFINITY;
  if (numOutput !== undefined) return Math.min(numOutput, cap);
  const reserve = Math.min(DEFAULT_NUM_OUTPUT, cap);
  return reserve < metadata.contextWindow ? reserve : Math.floor(metadata.contextWindow / 4);
}

/** Options of {@link PromptHelper}; the defaults are LlamaIndex's. */
export interface PromptHelperOptions {
  /** Tokens the model accepts, prompt plus output. @default 3900 */
  contextWindow?: number | undefined;
  /** Tokens reserved for the answer. @default 256 */
  numOutput?: number | undefined;
  /** Overlap of the splitters built by {@link PromptHelper.getTextSplitterGivenPrompt}, between 0 and 1. @default 0.1 */
  chunkOverlapRatio?: number | undefined;
  /** An upper bound on every chunk size. @default none */
  chunkSizeLimit?: number | undefined;
  /** @default "cl100k_base" */
  tokenizer?: TokenizerLike | undefined;
  /** Where words end when text is cut. @default " " */
  separator?: string | undefined;
  /**
   * What an image costs, for prompts with content blocks. Unset: the model's rule where a synthesizer knows the
   * model (`metadata.imageTokens`), else OpenAI's. @default undefined (counted as `{ kind: "openai" }`)
   */
  imageTokens?: ImageTokenRule | undefined;
}

/**
 * LlamaIndex's `PromptHelper`: how much context fits beside a prompt in the model's window, and cutting
 * text to fit. It counts exactly what is sent (template with known values, system prompt, chat wrapping,
 * schema), rendered by the same code as the call itself.
 * @example
 * const helper = new PromptHelper({ contextWindow: 4096 });
 * const size = helper.getAvailableChunkSize(DEFAULT_TEXT_QA_PROMPT, { variables: { query_str: "Why?" } });
 */
export class PromptHelper {
  readonly contextWindow: number;
  readonly numOutput: number;
  readonly chunkOverlapRatio: number;
  readonly chunkSizeLimit: number | undefined;
  readonly tokenizer: Tokenizer;
  readonly separator: string;
  /** The image-token rule this helper was given; undefined when none was (then OpenAI's rule counts). */
  readonly imageTokens: ImageTokenRule | undefined;
  #content: ReturnType<typeof contentBudget> | undefined;

  /** @throws InvalidArgumentError for a value out of range (message says which and why) */
  constructor(options: PromptHelperOptions = {}) {
    const {
      contextWindow = DEFAULT_CONTEXT_WINDOW,
      numOutput = DEFAULT_NUM_OUTPUT,
      chunkOverlapRatio = DEFAULT_CHUNK_OVERLAP_RATIO,
      chunkSizeLimit,
      tokenizer,
      separator = " ",
      imageTokens,
    } = optionsOf(
      "options",
      options,
      "{ contextWindow?, numOutput?, chunkOverlapRatio?, chunkSizeLimit?, … }",
    );
    checkInteger("contextWindow", contextWindow, 1);
    checkInteger("numOutput", numOutput, 0);
    if (numOutput >= contextWindow) {
      throw new InvalidArgumentError({
        parameter: "numOutput",
        value: numOutput,
        expected: `be less than contextWindow (${contextWindow})`,
        hint: "The window holds the prompt and the answer together: lower numOutput or raise contextWindow.",
      });
    }
    if (typeof chunkOverlapRatio !== "number" || !(chunkOverlapRatio >= 0 && chunkOverlapRatio <= 1)) {
      throw new InvalidArgumentError({
        parameter: "chunkOverlapRatio",
        value: chunkOverlapRatio,
        expected: "be a number between 0 and 1",
        hint: "It is the share of each chunk repeated in the next one (LlamaIndex: 0.1).",
      });
    }
    if (chunkSizeLimit !== undefined) checkInteger("chunkSizeLimit", chunkSizeLimit, 1);
    if (typeof separator !== "string" || separator === "") {
      throw new InvalidArgumentError({
        parameter: "separator",
        value: separator,
        expected: "be a non-empty string",
      });
    }
    this.contextWindow = contextWindow;
    this.numOutput = numOutput;
    this.chunkOverlapRatio = chunkOverlapRatio;
    this.chunkSizeLimit = chunkSizeLimit;
    this.tokenizer = resolveTokenizer(tokenizer);
    this.separator = separator;
    this.imageTokens = imageTokens;
  }

  /** This budget when it states an image rule, else the same budget with the model's (`metadata.imageTokens`). */
  withImageRuleOf(metadata: Pick<LLMMetadata, "imageTokens">): PromptHelper {
    checkLLMMetadata(metadata);
    return this.imageTokens !== undefined || metadata.imageTokens === undefined
      ? this
      : this.withImageTokens(metadata.imageTokens);
  }

  /** The same budget with `imageTokens` as its image rule. */
  withImageTokens(imageTokens: ImageTokenRule): PromptHelper {
    return new PromptHelper({
      contextWindow: this.contextWindow,
      numOutput: this.numOutput,
      chunkOverlapRatio: this.chunkOverlapRatio,
      chunkSizeLimit: this.chunkSizeLimit,
      tokenizer: this.tokenizer,
      separator: this.separator,
      imageTokens,
    });
  }

  /**
   * A helper for a model: its context window, its tokenizer unless one is given, and the output reserve of
   * {@link reserveOutput} (256, or the `numOutput` you pass, capped by the model's `maxOutputTokens`). The
   * library and the CLI both build their budget here, so one model reserves the same output everywhere.
   */
  static fromLLMMetadata(
    metadata: LLMMetadata,
    options: Omit<PromptHelperOptions, "contextWindow" | "numOutput"> & {
      numOutput?: number | undefined;
    } = {},
  ): PromptHelper {
    checkLLMMetadata(metadata);
    return new PromptHelper({
      ...optionsOf("options", options, "{ numOutput?, chunkOverlapRatio?, tokenizer?, … }"),
      contextWindow: metadata.contextWindow,
      numOutput: reserveOutput(metadata, options.numOutput),
      tokenizer: options.tokenizer ?? metadata.tokenizer,
      imageTokens: options.imageTokens ?? metadata.imageTokens,
    });
  }

  /**
   * `contextWindow − promptTokens − numOutput`: the tokens left beside a prompt of `promptTokens`, negative
   * when it is over. The one home of the budget formula: every mode, the packers' prompt frame and
   * {@link PromptHelper.getAvailableContextSize} (its throwing form) ask here.
   * @example helper.roomBeside(1200) // 4096 − 1200 − 256 = 2640
   */
  roomBeside(promptTokens: number): number {
    return this.contextWindow - promptTokens - this.numOutput;
  }

  /**
   * `contextWindow − promptTokens − numOutput`: the tokens left for context ({@link PromptHelper.roomBeside}).
   * @throws ContextOverflowError when negative, with every number and what to change
   */
  getAvailableContextSize(promptTokens: number, parts?: PromptTokenParts): number {
    checkInteger("promptTokens", promptTokens, 0);
    const available = this.roomBeside(promptTokens);
    if (available < 0) {
      throw new ContextOverflowError({
        contextWindow: this.contextWindow,
        numOutput: this.numOutput,
        promptTokens,
        ...(parts ? { parts } : {}),
      });
    }
    return available;
  }

  /**
   * The tokens of the prompt's fixed part as it will be sent: the template with partials and `variables`
   * filled and every other variable empty, the system prompt, chat wrapping and schema. For chat prompts
   * this differs from LlamaIndex on purpose: it does not count the literal `{context_str}`, and it counts
   * the 3 reply-priming tokens OpenAI adds; the system prompt counts even without a model.
   */
  countPrompt(prompt: BasePromptTemplate, options: BudgetOptions = {}): PromptTokenCount {
    checkPrompt("prompt", prompt);
    const { llm, systemPrompt, responseFormat, variables = {} } = options;
    const rendered = renderPrompt({ prompt, variables, llm, systemPrompt, responseFormat, empty: true });
    return countPromptTokens(rendered, this.tokenizer, { llm, systemPrompt, responseFormat });
  }

  /**
   * The tokens each of `numChunks` chunks may take: `floor(available / numChunks) − padding`, capped by
   * `chunkSizeLimit`. Unlike LlamaIndex, a result of 0 or less throws here rather than later.
   * @throws ContextOverflowError when the prompt leaves no room for any chunk
   */
  getAvailableChunkSize(prompt: BasePromptTemplate, options: BudgetOptions = {}): number {
    const { numChunks = 1, padding = DEFAULT_PADDING } = options;
    checkInteger("numChunks", numChunks, 1);
    checkInteger("padding", padding, 0);
    const { total, parts } = this.countPrompt(prompt, options);
    const available = this.getAvailableContextSize(total, parts);
    let size = Math.floor(available / numChunks) - padding;
    if (this.chunkSizeLimit !== undefined) size = Math.min(size, this.chunkSizeLimit);
    if (size <= 0) {
      throw new ContextOverflowError({
        contextWindow: this.contextWindow,
        numOutput: this.numOutput,
        promptTokens: total,
        parts,
        // Tokens missing for every chunk to get one token beside its padding.
        overBy: numChunks * (padding + 1) - available,
        hint:
          `Shared by ${numChunks} chunk${numChunks === 1 ? "" : "s"} with padding ${padding}, that leaves a chunk size of ${size}, ` +
          "and a chunk needs at least 1 token. Raise contextWindow, lower numOutput or padding, use fewer chunks, or shorten the prompt.",
      });
    }
    return size;
  }

  /** A {@link TokenTextSplitter} for the chunk size, with `floor(chunkOverlapRatio × chunkSize)` overlap. */
  getTextSplitterGivenPrompt(prompt: BasePromptTemplate, options: BudgetOptions = {}): TokenTextSplitter {
    const chunkSize = this.getAvailableChunkSize(prompt, options);
    return new TokenTextSplitter({
      chunkSize,
      chunkOverlap: Math.floor(this.chunkOverlapRatio * chunkSize),
      separator: this.separator,
      tokenizer: this.tokenizer,
    });
  }

  /**
   * Each chunk cut to an equal share of the context (the first chunk of a splitter built for
   * `numChunks = chunks.length`), as LlamaIndex does.
   * @throws InvalidArgumentError for an empty list (LlamaIndex divides by zero) or a chunk that is not a string
   */
  truncate(prompt: BasePromptTemplate, chunks: readonly string[], options: BudgetOptions = {}): string[] {
    return truncateChunks(this, prompt, chunks, options);
  }

  /**
   * The chunks joined (trimmed, blanks dropped, `"\n\n"` between) and cut into as few pieces as fit, at
   * word boundaries where that costs no extra piece. Deliberate differences from LlamaIndex: no overlap
   * (repack packs; overlap only sends text twice); `[]` gives `[]`, not `[""]`; no piece exceeds the chunk
   * size re-tokenized on its own, and when the template leaves one variable open, each piece is checked
   * inside the rendered prompt; the count is `ceil(tokens / chunkSize)`, or one more where word boundaries
   * make that impossible. Characters are never split, so where single characters take several tokens (CJK,
   * emoji) and the chunk size is small, pieces may end short and the count may grow further, but never past
   * a character-by-character greedy packing.
   * @example helper.repack(DEFAULT_TEXT_QA_PROMPT, texts, { variables: { query_str: query } })
   */
  repack(prompt: BasePromptTemplate, chunks: readonly string[], options: BudgetOptions = {}): string[] {
    return this.repackWithTokens(prompt, chunks, options).map((piece) => piece.text);
  }

  /**
   * {@link PromptHelper.repack}, with each piece's token count on its own (`tokenizer.count(text)`, exact),
   * taken from the packer's one up-front tokenization rather than by tokenizing the pieces again.
   * @example const chunkTokens = helper.repackWithTokens(summaryPrompt, texts).map((piece) => piece.tokens);
   */
  repackWithTokens(
    prompt: BasePromptTemplate,
    chunks: readonly string[],
    options: BudgetOptions = {},
  ): PackedPiece[] {
    const chunkSize = this.getAvailableChunkSize(prompt, options);
    return packChunksGreedily({ helper: this, prompt, chunks, chunkSize, options });
  }

  /**
   * The prompt around the context, for {@link TextPacker.next}'s `frame`: packing with it guarantees the
   * rendered prompt plus `numOutput` fits the window, whatever BPE does where the chunk meets the template.
   * Undefined when the template leaves more or fewer than one variable open after `options.variables`.
   * @example packer.next(helper.getAvailableChunkSize(qa, budget), { frame: helper.createPromptFrame(qa, budget) })
   */
  createPromptFrame(prompt: BasePromptTemplate, options: BudgetOptions = {}): PromptFrame | undefined {
    checkPrompt("prompt", prompt);
    return createPromptFrame(this, prompt, options);
  }

  get #contentBudget() {
    this.#content ??= contentBudget(this, this.imageTokens ?? { kind: "openai" });
    return this.#content;
  }

  /** One image's prompt tokens under this helper's image rule (see `countImageTokens`). */
  countImage(image: ImageBlock): number {
    checkContentBlock(image, "image", "image");
    return this.#contentBudget.countImage(image);
  }

  /** Blocks' tokens: each text on its own, each image by the rule. */
  countBlocks(blocks: readonly ContentBlock[]): number {
    checkContentBlocks(blocks, "blocks");
    return this.#contentBudget.countBlocks(blocks);
  }

  /** What counting these images assumed (unknown sizes, an unstated rule), one line each. */
  assumptionsFor(blocks: readonly ContentBlock[]): string[] {
    checkContentBlocks(blocks, "blocks");
    return this.#contentBudget.assumptionsFor(blocks);
  }

  /** The tokens of a prompt with content blocks, with none in it: the fixed part as sent, images counted by the rule. */
  countContentPrompt(prompt: BasePromptTemplate, options: ChatBudgetOptions = {}): PromptTokenCount {
    return this.#contentBudget.countPrompt(prompt, options);
  }

  /**
   * Tokens left for the content blocks of one call: `contextWindow − prompt − numOutput − padding`, with the
   * prompt counted as sent.
   * @throws ContextOverflowError when nothing is left
   */
  getAvailableContentSize(prompt: BasePromptTemplate, options: ChatBudgetOptions = {}): number {
    return this.#contentBudget.availableSize(prompt, options);
  }

  /** A packer over content blocks: text cut where a budget ends (as the text packer cuts it), images whole. */
  createContentPacker(blocks: readonly ContentBlock[]): ContentPacker {
    return this.#contentBudget.createPacker(blocks);
  }

  /**
   * The blocks packed into as few chunks as fit beside the prompt, in order: text is cut where a chunk ends,
   * an image never is, and a [text, image] run that does not fit is split between chunks.
   * @throws ContextOverflowError naming an image that does not fit even alone, before anything is sent
   */
  repackContent(
    prompt: BasePromptTemplate,
    blocks: readonly ContentBlock[],
    options: ChatBudgetOptions = {},
  ): ContentChunk[] {
    return this.#contentBudget.repack(prompt, blocks, options);
  }

  /** A packer over the chunks (joined as in {@link PromptHelper.repack}) with this helper's tokenizer and separator. */
  createPacker(chunks: readonly string[]): TextPacker {
    return createTextPacker({
      chunks,
      tokenizer: this.tokenizer,
      separator: this.separator,
      limits: { contextWindow: this.contextWindow, numOutput: this.numOutput },
    });
  }
}
