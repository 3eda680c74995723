// What a model's tokens cost: the caller's prices, else a short table of known list prices.

/** USD per one million tokens. */
export interface TokenPrices {
  /** Prompt (input) tokens. */
  input: number;
  /** Completion (output) tokens. */
  output: number;
}

/**
 * OpenAI's list prices (standard tier, USD per 1M tokens) for a few common models, as published on
 * platform.openai.com/docs/pricing in 2025. Prices change: pass `--price-in/--price-out` to be exact.
 */
export const KNOWN_PRICES: Readonly<Record<string, TokenPrices>> = {
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "gpt-3.5-turbo": { input: 0.5, output: 1.5 },
};

/**
 * The prices to bill a model at: the given ones (a missing side counts as 0), else the known prices of `model`
 * (a dated snapshot such as `gpt-4o-mini-2024-07-18` takes its family's), else undefined (cost unknown).
 */
export function resolvePrices({
  model,
  input,
  output,
}: {
  /** The model id, as the model reports it. */
  model: string;
  /** `--price-in`, USD per 1M prompt tokens. */
  input?: number | undefined;
  /** `--price-out`, USD per 1M completion tokens. */
  output?: number | undefined;
}): TokenPrices | undefined {
  if (input !== undefined || output !== undefined) return { input: input ?? 0, output: output ?? 0 };
  const known = KNOWN_PRICES[model];
  if (known) return known;
  const snapshot = /^(.*)-\d{4}-\d{2}-\d{2}$/.exec(model)?.[1];
  return snapshot === undefined ? undefined : KNOWN_PRICES[snapshot];
}

/** USD for the tokens at `prices`; undefined when the prices are unknown. */
export function dollars(
  usage: { promptTokens: number; completionTokens: number },
  prices: TokenPrices | undefined,
): number | undefined {
  if (prices === undefined) return undefined;
  return (usage.promptTokens * prices.input + usage.completionTokens * prices.output) / 1_000_000;
}
