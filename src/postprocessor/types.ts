import type { QueryEmbeddings } from "../embedding/query-embeddings.js";
import type { RagsynthEventHandler } from "../events/events.js";
import type { NodeWithScore } from "../schema/text-node.js";
import type { TokenizerLike } from "../tokenizer/tokenizer.js";

/** What every postprocessor receives besides the nodes. */
export interface PostprocessOptions {
  /** The user's query. Required: unlike LlamaIndex, there is no "no query bundle" path. */
  query: string;
  /** Stops embedding and model calls; the same signal the query engine got. */
  signal?: AbortSignal;
  /** Receives a `postprocess-end` event when the postprocessor has finished. */
  onEvent?: RagsynthEventHandler;
  /** The query's embeddings computed so far (by the retriever), reused when the same embedder asks again. */
  queryEmbeddings?: QueryEmbeddings;
  /**
   * Counts the tokens reported in that event. The query engine passes its own (the model's), so every
   * count in one query uses one tokenizer. @default "cl100k_base"
   */
  tokenizer?: TokenizerLike;
}

/**
 * The postprocessor contract: turns retrieved nodes into the nodes the synthesizer reads. A structural
 * type, so a plain object with these members is a postprocessor.
 * Implementations never mutate the nodes they are given (LlamaIndex's optimizer edits them in place).
 */
export interface NodePostprocessor {
  /** Shown in events and spans (`SimilarityPostprocessor`). */
  readonly name: string;
  postprocessNodes(nodes: NodeWithScore[], options: PostprocessOptions): Promise<NodeWithScore[]>;
}
