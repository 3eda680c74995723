import { optionsOf } from "../errors/check-options.js";
import { checkPrompt } from "../prompt/check-prompt.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { countPromptTokens, renderPrompt } from "../prompt/render-prompt.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import type { BudgetOptions } from "./budget-options.js";
import type { PackedPiece, PromptFrame, TextPacker } from "./text-packer.js";

/** What packing needs of a {@link PromptHelper}: its tokenizer, its room rule and its packer. */
export interface PackingHelper {
  readonly tokenizer: Tokenizer;
  /** `contextWindow − promptTokens − numOutput` ({@link PromptHelper.roomBeside}). */
  roomBeside(promptTokens: number): number;
  createPacker(chunks: readonly string[]): TextPacker;
}

// Tokens a cut may cost: up to 3 unused when the next character needs 4 (a byte-level BPE worst case),
// plus one more when the next chunk's first piece is tokenized again.
const CUT_MARGIN = 4;

/**
 * The variable the context goes into: the one variable the template leaves unfilled once partials and the
 * known `variables` are in. Undefined when there is not exactly one.
 */
export function contextVariableOf(prompt: BasePromptTemplate, given: BudgetOptions = {}): string | undefined {
  checkPrompt("prompt", prompt);
  const options = optionsOf("options", given, "{ llm?, variables?, … }");
  const template = prompt.kind === "selector" ? prompt.select(options.llm) : prompt;
  const known = options.variables ?? {};
  const open = template.variables.filter(
    (name) => !Object.hasOwn(template.partials, name) && !Object.hasOwn(known, name),
  );
  return open.length === 1 ? open[0] : undefined;
}

// Stands in for the context while the prompt is rendered, to find where the context goes.
const CONTEXT_MARK = "\uE000ragsynth:context\uE001";

/**
 * The prompt around the context, as sent, and how many tokens prompt plus context may take
 * ({@link PromptHelper.roomBeside} of the tokens outside the context's message). Undefined when the context
 * variable is ambiguous (see {@link contextVariableOf}).
 */
export function createPromptFrame(
  helper: PackingHelper,
  prompt: BasePromptTemplate,
  options: BudgetOptions = {},
): PromptFrame | undefined {
  const variable = contextVariableOf(prompt, options);
  if (variable === undefined) return undefined;
  const { llm, systemPrompt, responseFormat } = options;
  const render = (value: string) =>
    renderPrompt({
      prompt,
      variables: { ...options.variables, [variable]: value },
      llm,
      systemPrompt,
      responseFormat,
      empty: true,
    });
  const marked = render(CONTEXT_MARK);
  const texts =
    marked.kind === "completion" ? [marked.text] : marked.messages.map((message) => message.content);
  const holders = texts.filter((text) => text.includes(CONTEXT_MARK));
  const parts = holders.length === 1 ? (holders[0] as string).split(CONTEXT_MARK) : [];
  if (parts.length !== 2) return undefined;
  const [prefix, suffix] = parts as [string, string];
  const empty = countPromptTokens(render(""), helper.tokenizer, { llm, systemPrompt, responseFormat }).total;
  const outside = empty - helper.tokenizer.count(prefix + suffix);
  return {
    prefix,
    suffix,
    maxTokens: helper.roomBeside(outside),
    outsideTokens: outside,
  };
}

/**
 * Greedy packing at `chunkSize`, each piece checked inside the prompt. Word-boundary cuts are taken while the
 * pieces left can still hold the rest, so the count stays within one of `ceil(tokens / chunkSize)`. Each
 * piece comes with its exact token count on its own.
 */
export function packChunksGreedily({
  helper,
  prompt,
  chunks,
  chunkSize,
  options,
}: {
  helper: PackingHelper;
  prompt: BasePromptTemplate;
  chunks: readonly string[];
  chunkSize: number;
  options: BudgetOptions;
}): PackedPiece[] {
  const packer = helper.createPacker(chunks);
  const frame = createPromptFrame(helper, prompt, options);
  const allowed = Math.ceil(packer.remainingTokens / chunkSize) + 1;
  const pieces: PackedPiece[] = [];
  while (!packer.done) {
    const later = allowed - pieces.length - 1;
    const needed = packer.remainingTokens - later * Math.max(1, chunkSize - CUT_MARGIN);
    const maxWaste = needed <= 0 ? Number.POSITIVE_INFINITY : Math.max(0, chunkSize - needed);
    const piece = packer.nextPiece(chunkSize, { frame, maxWaste });
    if (piece === undefined) break;
    pieces.push(piece);
  }
  return pieces;
}
