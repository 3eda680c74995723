import type { RagsynthEventHandler, SynthesisUsage } from "../events/events.js";
import type { PromptMixin } from "../prompt/prompt-template.js";
import type { Metadata, NodeWithScore } from "../schema/text-node.js";

/** The nine response modes, spelled as users type them in LlamaIndex. */
export const RESPONSE_MODES = [
  "refine",
  "compact",
  "tree_summarize",
  "simple_summarize",
  "generation",
  "accumulate",
  "compact_accumulate",
  "no_text",
  "context_only",
] as const;

export type ResponseMode = (typeof RESPONSE_MODES)[number];

export interface SynthesizeOptions {
  query: string;
  /** The retrieved nodes, in the order they should be read. */
  nodes: NodeWithScore[];
  /** Nodes cited as sources without being sent to the model. */
  additionalSourceNodes?: NodeWithScore[];
  signal?: AbortSignal;
}

/** A finished answer. */
export interface SynthesisResponse<T = unknown> {
  /** The answer text (`""` for `no_text`; the JSON text when `object` is set). */
  response: string;
  /** The typed answer when an `outputSchema` was given (an array of them for accumulate modes). */
  object?: T;
  /** The nodes given, then the additional source nodes, in every mode. */
  sourceNodes: NodeWithScore[];
  /** What the budget assumed rather than knew (an image of unknown size, a model that states no image rule). */
  assumptions?: string[];
  /** Each source node's metadata, by node id. */
  metadata: Record<string, Metadata>;
  usage: SynthesisUsage;
  /** The answer text. */
  toString(): string;
}

/** A streaming answer: sources at once, text as it arrives, the full response at the end. */
export interface StreamingSynthesisResponse<T = unknown> {
  sourceNodes: NodeWithScore[];
  /** The answer's text deltas. Can be consumed once; breaking early aborts the remaining work. */
  textStream: AsyncIterable<string>;
  /** Resolves when the stream has ended (consume `textStream`, or this alone drains it). */
  response: Promise<SynthesisResponse<T>>;
}

/** What every synthesizer, built in or custom, offers. */
export interface ResponseSynthesizer<T = unknown> extends PromptMixin {
  readonly mode: string;
  synthesize(options: SynthesizeOptions): Promise<SynthesisResponse<T>>;
  stream(options: SynthesizeOptions): StreamingSynthesisResponse<T>;
}

export type { RagsynthEventHandler, SynthesisUsage };
