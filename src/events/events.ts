import type { LLMUsage, SynthesisUsage } from "../usage/usage.js";

export type { SynthesisUsage };

/** Which step of a synthesis an LLM call is. */
export type LLMCallStep =
  | { kind: "answer"; index: number }
  | { kind: "refine"; index: number }
  | { kind: "tree"; level: number; index: number; count: number }
  | { kind: "accumulate"; index: number; count: number }
  | { kind: "simple_summarize" }
  | { kind: "generation" }
  | { kind: "rerank"; index: number; count: number }
  | { kind: "custom"; name: string };

/**
 * Everything ragsynth reports while it works. Passed to `onEvent`; the same data goes to OpenTelemetry spans.
 * Names are noun-verb; `*-end` events fire when the work, including a stream, has really finished.
 */
export type RagsynthEvent =
  | { type: "synthesize-start"; mode: string; query: string; nodeCount: number }
  | { type: "synthesize-end"; mode: string; usage: SynthesisUsage; durationMs: number; error?: unknown }
  | {
      type: "pack";
      mode: string;
      /** Tree level (0 = leaves) or refine step the packing was for. */
      round: number;
      /** Token counts of the packed chunks. */
      chunkTokens: number[];
      /** The most context tokens each chunk could take. */
      availableChunkSize: number;
      /** Tokens cut from the context to fit (`simple_summarize` truncates by design); absent when nothing was cut. */
      truncatedTokens?: number;
    }
  | {
      /** Something that works but may not do what the caller wants; the CLI prints it as a notice. */
      type: "warning";
      mode: string;
      /**
       * `large_num_output`: numOutput is over half the window, so long answers crowd out refine context.
       * `template_without_query`: a template has no `{query_str}`, so the model never sees the question.
       * `implausible_usage`: the server reported token counts that cannot be right; the tokenizer's count is used.
       */
      code: "large_num_output" | "template_without_query" | "implausible_usage";
      message: string;
    }
  | {
      type: "llm-call-start";
      mode: string;
      /**
       * The call's id, the same on its `llm-call-end`: pairs the two when calls run at once. Every call ragsynth
       * makes sets it; optional in the type so events built by hand (replays, tests) still type-check.
       */
      callId?: string;
      step: LLMCallStep;
      promptTokens: number;
      contextTokens: number;
      /** The context this call reads (retrieved text, or the summaries a tree level combines). */
      context?: string;
      /**
       * Ids of the synthesis's nodes whose content the packer put in this call, whole or in part, in order
       * (absent when the call holds none: a tree level above the leaves, `generation`).
       */
      nodeIds?: string[];
      /** The `callId`s of earlier calls whose answers this call reads (the summaries below it, refine's answer so far). */
      inputCallIds?: string[];
    }
  | {
      type: "llm-call-end";
      mode: string;
      /** The id its `llm-call-start` carried (always set by ragsynth's calls). */
      callId?: string;
      step: LLMCallStep;
      promptTokens: number;
      completionTokens: number;
      latencyMs: number;
      usage?: LLMUsage;
      /** Structured answer filtering: whether this chunk satisfied the query. */
      querySatisfied?: boolean;
      /** The call's answer text (what a later call, such as a tree level above, reads). */
      text?: string;
      error?: unknown;
    }
  | { type: "retrieve-start"; query: string }
  | { type: "retrieve-end"; query: string; nodeCount: number; tokens: number; durationMs: number }
  | {
      type: "postprocess-end";
      /** The postprocessor's name (`SentenceEmbeddingOptimizer`). */
      name: string;
      nodesBefore: number;
      nodesAfter: number;
      tokensBefore: number;
      tokensAfter: number;
      durationMs: number;
      /** Postprocessor-specific detail (per-node token counts, fallbacks taken). */
      detail?: Record<string, unknown>;
    }
  | { type: "query-start"; query: string }
  | { type: "query-end"; query: string; durationMs: number; error?: unknown };

export type RagsynthEventHandler = (event: RagsynthEvent) => void;
