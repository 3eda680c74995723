import type { Context, Tracer } from "@opentelemetry/api";
import type { QueryEmbeddings } from "../embedding/query-embeddings.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEvent, RagsynthEventHandler } from "../events/events.js";
import { countNodesTokens } from "../postprocessor/count-node-tokens.js";
import type { NodePostprocessor } from "../postprocessor/types.js";
import type { NodeWithScore } from "../schema/text-node.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { startSpan } from "../tracing/start-span.js";

type PostprocessEnd = Extract<RagsynthEvent, { type: "postprocess-end" }>;

/**
 * Runs the postprocessors in list order, each with the query and the signal, each in its own span.
 * Every postprocessor yields exactly one `postprocess-end` event: its own, or one the engine emits for it.
 */
export async function runPostprocessors({
  nodes,
  postprocessors,
  query,
  signal,
  queryEmbeddings,
  onEvent,
  tokenizer,
  tracer,
  parent,
}: {
  nodes: NodeWithScore[];
  postprocessors: readonly NodePostprocessor[];
  query: string;
  signal: AbortSignal | undefined;
  queryEmbeddings?: QueryEmbeddings;
  onEvent: RagsynthEventHandler | undefined;
  tokenizer: Tokenizer;
  tracer: Tracer;
  parent: Context;
}): Promise<NodeWithScore[]> {
  let current = nodes;
  for (const [index, postprocessor] of postprocessors.entries()) {
    signal?.throwIfAborted();
    const span = startSpan(
      tracer,
      "ragsynth.postprocess",
      {
        attributes: { "ragsynth.postprocessor": postprocessor.name, "ragsynth.nodes_before": current.length },
      },
      parent,
    );
    const started = performance.now();
    let reported: PostprocessEnd | undefined;
    const forward: RagsynthEventHandler = (event) => {
      if (event.type === "postprocess-end" && event.name === postprocessor.name) reported = event;
      onEvent?.(event);
    };
    const before = current;
    try {
      const options = {
        query,
        tokenizer,
        ...(signal ? { signal } : {}),
        ...(onEvent ? { onEvent: forward } : {}),
        ...(queryEmbeddings ? { queryEmbeddings } : {}),
      };
      const result: unknown = await span.run(() => postprocessor.postprocessNodes(before, options));
      if (!Array.isArray(result)) {
        throw new InvalidArgumentError({
          parameter: `nodePostprocessors[${index}]`,
          value: result,
          expected: `return an array of NodeWithScore from postprocessNodes (${postprocessor.name})`,
        });
      }
      current = result as NodeWithScore[];
      if (onEvent && !reported) {
        reported = {
          type: "postprocess-end",
          name: postprocessor.name,
          nodesBefore: before.length,
          nodesAfter: current.length,
          tokensBefore: countNodesTokens(before, tokenizer),
          tokensAfter: countNodesTokens(current, tokenizer),
          durationMs: performance.now() - started,
        };
        onEvent(reported);
      }
      span.span.setAttribute("ragsynth.nodes_after", current.length);
      if (reported) {
        span.span.setAttributes({
          "ragsynth.tokens_before": reported.tokensBefore,
          "ragsynth.tokens_after": reported.tokensAfter,
        });
      }
      span.end();
    } catch (error) {
      span.end(error);
      throw error;
    }
  }
  return current;
}
