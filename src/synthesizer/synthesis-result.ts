import { RagsynthError } from "../errors/ragsynth-error.js";
import type { SynthesisUsage } from "../events/events.js";
import type { Metadata } from "../schema/text-node.js";
import type { SynthesizerContext } from "./synthesizer-context.js";
import type { SynthesisResponse } from "./types.js";

// What a synthesis returns: the run's result turned into the response, and what a failed run spent.

/** What a synthesizer's `run` returns: the answer text, and the typed object when there is one. */
export interface SynthesizerRunResult<T = unknown> {
  text: string;
  object?: T;
  /** What the budget assumed rather than knew (an image's unknown size); shown on the response. */
  assumptions?: string[];
}

/** Built-in modes whose `object` is one typed answer (accumulate's is an array, shown as labelled answers). */
export const JSON_TEXT_MODES = new Set([
  "refine",
  "compact",
  "tree_summarize",
  "simple_summarize",
  "generation",
]);

/** What the message path's budget assumed about images (unknown sizes, no stated image-token rule). */
export function imageAssumptions(context: SynthesizerContext): string[] {
  const assumptions = context.promptHelper.assumptionsFor(context.blocks);
  const hasImage = context.blocks.some((block) => block.type === "image");
  if (hasImage && context.llm.metadata.imageTokens === undefined) {
    assumptions.unshift(
      `image tokens counted by OpenAI's rule: model "${context.llm.metadata.model}" states no rule`,
    );
  }
  return assumptions;
}

/**
 * Puts what the synthesis spent before it failed on the error: `usage` and `callsSucceeded`, so a caller
 * sees the cost and progress of a failed run without listening to events.
 */
export function annotate(error: unknown, usage: SynthesisUsage, callsSucceeded: number): void {
  if (!RagsynthError.isInstance(error) || error.usage !== undefined) return;
  error.usage = { ...usage };
  error.callsSucceeded = callsSucceeded;
}

/** The response of a finished run: text, typed object, assumptions, sources with their metadata, usage. */
export function buildResponse<T>(
  result: SynthesizerRunResult<T>,
  sourceNodes: SynthesisResponse<T>["sourceNodes"],
  usage: SynthesisUsage,
): SynthesisResponse<T> {
  const metadata: Record<string, Metadata> = {};
  for (const { node } of sourceNodes) metadata[node.id] = node.metadata;
  const text = result.text;
  return {
    response: text,
    ...(result.object !== undefined ? { object: result.object } : {}),
    ...(result.assumptions ? { assumptions: result.assumptions } : {}),
    sourceNodes,
    metadata,
    usage: { ...usage },
    toString: () => text,
  };
}
