import { countImageTokens } from "../budget/image-tokens.js";
import type { PromptHelper } from "../budget/index.js";
import type { LLMCallStep, RagsynthEvent } from "../events/events.js";
import type { ChatMessage, LLM, LLMCallOptions, LLMMetadata } from "../llm/types.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import type { ResponseMode } from "../synthesizer/types.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";

/** A closed range; `min === max` when the value does not depend on the model's answers. */
export interface Range {
  min: number;
  max: number;
}

/** One packing round, as the synthesizer reported it. */
export interface PlannedPack {
  round: number;
  chunkTokens: number[];
  availableChunkSize: number;
  truncatedTokens?: number;
}

/** One simulated run of a mode, with every answer the same length. */
export interface PlanScenario {
  /** Tokens of every simulated answer: 0 or `numOutput`. */
  answerTokens: number;
  llmCalls: number;
  promptTokens: number;
  /** Completion tokens at this answer length (`llmCalls × answerTokens`). */
  completionTokens: number;
  /** Prompt tokens of the images sent (part of `promptTokens`). */
  imageTokens: number;
  packs: PlannedPack[];
  /** Each call's step and prompt tokens, in order. */
  calls: Array<{ step: LLMCallStep; promptTokens: number; contextTokens: number }>;
  /** Set when the mode would fail at this answer length (a context overflow, a tree that does not shrink). */
  error?: { code?: string; message: string };
}

/** How one response mode would handle the retrieved nodes. */
export interface ModePlan {
  mode: ResponseMode;
  llmCalls: Range;
  promptTokens: Range;
  completionTokens: Range;
  /** Prompt tokens of the images the calls carry (part of `promptTokens`), by the model's image-token rule. */
  imageTokens: Range;
  /** True when calls and prompt tokens do not depend on the answers. */
  exact: boolean;
  /** Answers of 0 tokens (the fewest calls) and of `numOutput` tokens (the most). */
  scenarios: [PlanScenario, PlanScenario];
  /** USD, when prices were given. */
  costUsd?: Range;
}

/** USD per million tokens. */
export interface Prices {
  input: number | undefined;
  output: number | undefined;
}

/** Text of exactly `tokens` tokens (or as close below as the tokenizer allows). */
export function textOfTokens(tokenizer: Tokenizer, tokens: number): string {
  if (tokens <= 0) return "";
  const words = (count: number) => Array.from({ length: count }, () => "ok").join(" ");
  if (tokenizer.count(words(tokens)) === tokens) return words(tokens);
  let low = 0;
  let high = tokens;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (tokenizer.count(words(middle)) <= tokens) low = middle;
    else high = middle - 1;
  }
  return words(low);
}

/**
 * A model that answers every call with `answerTokens` tokens (fewer when the call's `maxTokens` is lower, as a
 * server cuts its answer), instantly. It has the real model's metadata, so prompts render (chat or completion)
 * and count exactly as they would.
 */
function fixedAnswerModel(
  metadata: LLMMetadata,
  tokenizer: Tokenizer,
  answerTokens: number,
  onImages: (tokens: number) => void,
): LLM {
  const full = textOfTokens(tokenizer, answerTokens);
  // Counts the images each call carries, by the model's rule, as the budget counted them.
  const countImages = (input: unknown) => {
    if (!Array.isArray(input)) return;
    for (const message of input as ChatMessage[]) {
      for (const block of message.blocks ?? []) {
        if (block.type === "image") onImages(countImageTokens(block, metadata.imageTokens).tokens);
      }
    }
  };
  const answerFor = (options?: LLMCallOptions) =>
    options?.maxTokens !== undefined && options.maxTokens < answerTokens
      ? textOfTokens(tokenizer, options.maxTokens)
      : full;
  const result = async (input: unknown, options?: LLMCallOptions) => {
    countImages(input);
    return { text: answerFor(options) };
  };
  async function* stream(input: unknown, options?: LLMCallOptions) {
    countImages(input);
    const answer = answerFor(options);
    if (answer !== "") yield answer;
  }
  return {
    metadata: { ...metadata },
    complete: result,
    chat: result,
    streamComplete: stream,
    streamChat: stream,
  };
}

async function simulate({
  mode,
  nodes,
  query,
  metadata,
  promptHelper,
  answerTokens,
  signal,
}: {
  mode: ResponseMode;
  nodes: NodeWithScore[];
  query: string;
  metadata: LLMMetadata;
  promptHelper: PromptHelper;
  answerTokens: number;
  signal: AbortSignal;
}): Promise<PlanScenario> {
  const scenario: PlanScenario = {
    answerTokens,
    llmCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    imageTokens: 0,
    packs: [],
    calls: [],
  };
  const onEvent = (event: RagsynthEvent) => {
    if (event.type === "pack") {
      const { round, chunkTokens, availableChunkSize, truncatedTokens } = event;
      scenario.packs.push({
        round,
        chunkTokens,
        availableChunkSize,
        ...(truncatedTokens ? { truncatedTokens } : {}),
      });
    } else if (event.type === "llm-call-start") {
      scenario.llmCalls += 1;
      scenario.promptTokens += event.promptTokens;
      scenario.completionTokens += answerTokens;
      scenario.calls.push({
        step: event.step,
        promptTokens: event.promptTokens,
        contextTokens: event.contextTokens,
      });
    }
  };
  const llm = fixedAnswerModel(metadata, promptHelper.tokenizer, answerTokens, (tokens) => {
    scenario.imageTokens += tokens;
  });
  const synthesizer = getResponseSynthesizer({
    responseMode: mode,
    llm,
    promptHelper,
    onEvent,
    concurrency: 1,
  });
  try {
    await synthesizer.synthesize({ query, nodes, signal });
  } catch (error) {
    signal.throwIfAborted();
    const code = (error as { code?: unknown }).code;
    scenario.error = {
      ...(typeof code === "string" ? { code } : {}),
      message: error instanceof Error ? error.message : String(error),
    };
  }
  return scenario;
}

/**
 * Plans each mode without calling the model: runs the real synthesizer (the same packing code `ask` runs)
 * against a stand-in model that answers instantly, once with answers of 0 tokens and once with answers of
 * `numOutput` tokens. Modes whose packing depends on the answer (refine, compact: the existing answer takes
 * room; tree_summarize above the leaves: summaries are packed again) get a range; the others are exact.
 */
export async function planModes({
  modes,
  nodes,
  query,
  metadata,
  promptHelper,
  prices,
  signal,
}: {
  modes: readonly ResponseMode[];
  nodes: NodeWithScore[];
  query: string;
  metadata: LLMMetadata;
  promptHelper: PromptHelper;
  prices: Prices;
  signal: AbortSignal;
}): Promise<ModePlan[]> {
  const plans: ModePlan[] = [];
  for (const mode of modes) {
    signal.throwIfAborted();
    const common = { mode, nodes, query, metadata, promptHelper, signal };
    const fewest = await simulate({ ...common, answerTokens: 0 });
    const most = await simulate({ ...common, answerTokens: promptHelper.numOutput });
    const range = (pick: (scenario: PlanScenario) => number): Range => ({
      min: Math.min(pick(fewest), pick(most)),
      max: Math.max(pick(fewest), pick(most)),
    });
    const plan: ModePlan = {
      mode,
      llmCalls: range((scenario) => scenario.llmCalls),
      promptTokens: range((scenario) => scenario.promptTokens),
      completionTokens: range((scenario) => scenario.completionTokens),
      imageTokens: range((scenario) => scenario.imageTokens),
      exact: fewest.llmCalls === most.llmCalls && fewest.promptTokens === most.promptTokens,
      scenarios: [fewest, most],
    };
    if (prices.input !== undefined || prices.output !== undefined) {
      const cost = (prompt: number, completion: number) =>
        (prompt * (prices.input ?? 0) + completion * (prices.output ?? 0)) / 1_000_000;
      plan.costUsd = {
        min: cost(plan.promptTokens.min, plan.completionTokens.min),
        max: cost(plan.promptTokens.max, plan.completionTokens.max),
      };
    }
    plans.push(plan);
  }
  return plans;
}
