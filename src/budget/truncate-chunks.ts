import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { type TokenTextSplitter, truncateText } from "../splitter/token-text-splitter.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import type { BudgetOptions } from "./budget-options.js";
import { checkChunks } from "./text-packer.js";

/** What truncating needs of a PromptHelper (structural, so this module does not import the class). */
interface TruncatingHelper {
  readonly tokenizer: Tokenizer;
  readonly contextWindow: number;
  readonly numOutput: number;
  getTextSplitterGivenPrompt(prompt: BasePromptTemplate, options?: BudgetOptions): TokenTextSplitter;
}

/**
 * Each chunk cut to an equal share of the context (the first chunk of a splitter built for
 * `numChunks = chunks.length`), as LlamaIndex does: `PromptHelper.truncate`.
 * @throws InvalidArgumentError for an empty list (LlamaIndex divides by zero) or a chunk that is not a string
 */
export function truncateChunks(
  helper: TruncatingHelper,
  prompt: BasePromptTemplate,
  chunks: readonly string[],
  options: BudgetOptions,
): string[] {
  checkChunks(chunks);
  if (chunks.length === 0) {
    throw new InvalidArgumentError({
      parameter: "chunks",
      value: chunks,
      expected: "be a non-empty array of strings",
      hint: "There is nothing to truncate; skip the call when there are no chunks.",
    });
  }
  const splitter = helper.getTextSplitterGivenPrompt(prompt, { ...options, numChunks: chunks.length });
  return chunks.map((chunk) => {
    try {
      return truncateText(chunk, splitter);
    } catch (error) {
      throw characterOverflow(helper, error, chunk, splitter.chunkSize);
    }
  });
}

/** The splitter's "chunkSize too small for a character" is a window problem here: the caller set no chunkSize. */
function characterOverflow(
  helper: TruncatingHelper,
  error: unknown,
  chunk: string,
  chunkSize: number,
): unknown {
  if (!InvalidArgumentError.isInstance(error) || error.parameter !== "chunkSize") return error;
  for (const character of chunk) {
    const tokens = helper.tokenizer.count(character);
    if (tokens > chunkSize) {
      return ContextOverflowError.forPiece({
        what: `The character ${JSON.stringify(character)} (${tokens} tokens on its own)`,
        tokens,
        room: chunkSize,
        contextWindow: helper.contextWindow,
        numOutput: helper.numOutput,
        hint: "Each chunk gets an equal share and cannot split a character: raise contextWindow, lower numOutput, or pass fewer chunks.",
      });
    }
  }
  return error;
}
