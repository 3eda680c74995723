import type { RagsynthEvent } from "../events/events.js";
import type { VectorStoreIndex } from "../index-store/index.js";
import { buildPostprocessors, type CutoffOptions } from "../postprocessor/cutoff-postprocessors.js";
import { type ImageReport, imageStep } from "../postprocessor/image-step.js";
import type { NodePostprocessor } from "../postprocessor/types.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import { collapseCopies } from "../retrieval/collapse-copies.js";
import type { RetrievalMode, Retriever } from "../retrieval/retriever.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";

/** What a query over an index asks of retrieval: how many nodes, which way, the cut-offs, and local images. */
export interface IndexQueryOptions {
  topK: number;
  /** Unset: the index picks by its embedder (lexical offline, hybrid with an embedding model). */
  retrieval?: RetrievalMode | null | undefined;
  similarityCutoff?: number | null | undefined;
  optimizer?: CutoffOptions["optimizer"] | null;
  /**
   * Local images the retrieved nodes are or reference, checked under `paths` and attached only with `attach`
   * (see `imageStep`); no step at all for an index without images. @default no image step
   */
  images?:
    | { attach: boolean; paths: readonly string[]; cwd: string; baseDir?: string | undefined }
    | undefined;
}

/** The retriever and postprocessors of one query, and the report of its images (when it has an image step). */
export interface IndexQuery {
  retriever: Retriever;
  nodePostprocessors: NodePostprocessor[];
  images: ImageReport | undefined;
}

/**
 * Retrieval over an index as `ask`, `plan`, `eval` and the eval workers run it, written once: the index's top-k
 * different texts (and retrieval mode; `collapseCopies`), the similarity cut-off, then the sentence optimizer
 * (weighing by the index's own query embedder, `index.queryEmbedModel`), then the image step.
 */
export function indexQuery(index: VectorStoreIndex, options: IndexQueryOptions): IndexQuery {
  const nodePostprocessors = buildPostprocessors(
    { similarityCutoff: options.similarityCutoff ?? undefined, optimizer: options.optimizer ?? undefined },
    index.queryEmbedModel,
  );
  // Only when some node is or references an image: no postprocessor (and no step-listing line) for text-only corpora.
  let images: ImageReport | undefined;
  if (options.images && index.hasImages()) {
    const step = imageStep(options.images);
    nodePostprocessors.push(step.postprocessor);
    images = step.report;
  }
  // The top k different texts: a file copied into several places (Debian's per-package changelogs) fills one slot.
  const retriever = collapseCopies(
    (similarityTopK) =>
      index.asRetriever({
        similarityTopK,
        ...(options.retrieval ? { retrievalMode: options.retrieval } : {}),
      }),
    options.topK,
  );
  return { retriever, nodePostprocessors, images };
}

/**
 * An engine that retrieves and postprocesses and never answers (`no_text`): what `plan` packs and what an eval
 * scores (each mode then answers from the nodes it returns), the same embedded and on a worker.
 */
export function retrievalEngine(
  { retriever, nodePostprocessors }: IndexQuery,
  { tokenizer, onEvent }: { tokenizer: Tokenizer; onEvent?: ((event: RagsynthEvent) => void) | undefined },
): RetrieverQueryEngine {
  return new RetrieverQueryEngine({
    retriever,
    nodePostprocessors,
    responseMode: "no_text",
    tokenizer,
    ...(onEvent ? { onEvent } : {}),
  });
}
