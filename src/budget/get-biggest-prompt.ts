import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkPrompt } from "../prompt/check-prompt.js";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import { countPromptTokens, type RenderTarget, renderPrompt } from "../prompt/render-prompt.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { TokenizerLike } from "../tokenizer/tokenizer.js";

/** Options of {@link getBiggestPrompt}. */
export interface GetBiggestPromptOptions {
  tokenizer: TokenizerLike;
  /** The model the prompts are rendered for (chat or completion form). @default a completion model */
  llm?: RenderTarget | undefined;
  /** Values already known; every other variable counts as empty. */
  variables?: TemplateVariables | undefined;
}

/**
 * The prompt whose fixed part costs the most tokens as sent; the first one on a tie. Unlike LlamaIndex,
 * which compares characters, this compares tokens, rendered for `llm`.
 * @throws InvalidArgumentError for an empty list
 */
export function getBiggestPrompt(
  prompts: readonly BasePromptTemplate[],
  options: GetBiggestPromptOptions,
): BasePromptTemplate {
  if (!Array.isArray(prompts)) {
    throw new InvalidArgumentError({
      parameter: "prompts",
      value: prompts,
      expected: "be an array of prompt templates",
    });
  }
  const { tokenizer, llm, variables = {} } = optionsOf("options", options, "{ tokenizer, llm?, variables? }");
  const resolved = resolveTokenizer(tokenizer);
  let biggest: BasePromptTemplate | undefined;
  let most = -1;
  for (const [index, prompt] of prompts.entries()) {
    checkPrompt(`prompts[${index}]`, prompt);
    const rendered = renderPrompt({ prompt, variables, llm, empty: true });
    const tokens = countPromptTokens(rendered, resolved, { llm }).total;
    if (tokens > most) {
      biggest = prompt;
      most = tokens;
    }
  }
  if (!biggest) {
    throw new InvalidArgumentError({
      parameter: "prompts",
      value: prompts,
      expected: "be a non-empty array",
    });
  }
  return biggest;
}
