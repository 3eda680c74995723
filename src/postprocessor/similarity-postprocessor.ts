import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkNodesWithScore } from "../schema/check-text-nodes.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { countNodesTokens } from "./count-node-tokens.js";
import type { NodePostprocessor, PostprocessOptions } from "./types.js";

export interface SimilarityPostprocessorOptions {
  /** Nodes scoring at least this much are kept; a score equal to the cutoff is kept. */
  similarityCutoff: number;
  /**
   * Keep nodes that carry no score (a keyword retriever, a hand-built list): nothing says they are
   * dissimilar. With `false` they are dropped, as LlamaIndex (Python) does when a cutoff is set.
   * @default true
   */
  keepUnscored?: boolean;
}

/**
 * Drops nodes whose score is below `similarityCutoff`; order and nodes are otherwise unchanged.
 * Differs from LlamaIndex: score 0 passes a cutoff of 0 (LlamaIndex.TS drops it), and unscored
 * nodes are kept by default (see `keepUnscored`).
 * @example new SimilarityPostprocessor({ similarityCutoff: 0.75 })
 */
export class SimilarityPostprocessor implements NodePostprocessor {
  readonly name = "SimilarityPostprocessor";
  readonly similarityCutoff: number;
  readonly keepUnscored: boolean;

  constructor(options: SimilarityPostprocessorOptions) {
    const { similarityCutoff, keepUnscored = true } = optionsOf(
      "options",
      options,
      "{ similarityCutoff: number, keepUnscored?: boolean }",
    );
    if (typeof similarityCutoff !== "number" || Number.isNaN(similarityCutoff)) {
      throw new InvalidArgumentError({
        parameter: "similarityCutoff",
        value: similarityCutoff,
        expected: "be a number",
        hint: "Cosine scores lie in [-1, 1]; 0.7 to 0.8 is a common cutoff.",
      });
    }
    if (typeof keepUnscored !== "boolean") {
      throw new InvalidArgumentError({
        parameter: "keepUnscored",
        value: keepUnscored,
        expected: "be a boolean",
      });
    }
    this.similarityCutoff = similarityCutoff;
    this.keepUnscored = keepUnscored;
  }

  async postprocessNodes(
    nodes: NodeWithScore[],
    options: Partial<PostprocessOptions> = {},
  ): Promise<NodeWithScore[]> {
    checkNodesWithScore(nodes, "nodes");
    const { signal, onEvent, tokenizer } = optionsOf("options", options, "{ query?, signal?, onEvent? }");
    signal?.throwIfAborted();
    const started = performance.now();
    const kept: NodeWithScore[] = [];
    const droppedIds: string[] = [];
    let unscored = 0;
    for (const node of nodes) {
      const keep = node.score === undefined ? this.keepUnscored : node.score >= this.similarityCutoff;
      if (node.score === undefined) unscored += 1;
      if (keep) kept.push(node);
      else droppedIds.push(node.node.id);
    }
    if (!onEvent) return kept;
    onEvent({
      type: "postprocess-end",
      name: this.name,
      nodesBefore: nodes.length,
      nodesAfter: kept.length,
      tokensBefore: countNodesTokens(nodes, resolveTokenizer(tokenizer)),
      tokensAfter: countNodesTokens(kept, resolveTokenizer(tokenizer)),
      durationMs: performance.now() - started,
      detail: {
        similarityCutoff: this.similarityCutoff,
        keepUnscored: this.keepUnscored,
        unscored,
        droppedIds,
      },
    });
    return kept;
  }
}
