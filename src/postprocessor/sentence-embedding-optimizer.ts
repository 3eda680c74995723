import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { similarity } from "../embedding/similarity.js";
import type { Embedder, SimilarityMode } from "../embedding/types.js";
import { optionsOf } from "../errors/check-options.js";
import { checkQuery } from "../errors/check-query.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkNodesWithScore } from "../schema/check-text-nodes.js";
import { MetadataMode, type NodeWithScore } from "../schema/text-node.js";
import { joinSentences } from "../splitter/join-sentences.js";
import { splitSentences } from "../splitter/sentences.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { countNodeTokens } from "./count-node-tokens.js";
import { embedSentences, type SentenceEmbeddings } from "./embed-sentences.js";
import { OptimizerZeroSentencesError } from "./optimizer-zero-sentences-error.js";
import { expandWindows, passingSentences } from "./select-sentences.js";
import type { NodePostprocessor, PostprocessOptions } from "./types.js";
import { validateOptimizerOptions } from "./validate-optimizer-options.js";

/** What to do with a node none of whose sentences pass the cutoffs. */
export type OptimizerOnEmpty = "error" | "keep_best" | "drop_node";

export interface SentenceEmbeddingOptimizerOptions {
  /**
   * Embeds the query and every sentence. Pass your index's `embedModel` for semantic scoring.
   * @default new HashingEmbedder() (lexical and offline, the same default as the CLI; not a global setting)
   */
  embedModel?: Embedder;
  /** Keep the best `floor(n × percentileCutoff)` sentences of each node; a result of 0 keeps all, as in LlamaIndex. */
  percentileCutoff?: number;
  /** Keep sentences whose similarity is strictly greater than this. With `percentileCutoff`, both must hold. */
  thresholdCutoff?: number;
  /** Sentences kept before each selected one. @default 1 */
  contextBefore?: number;
  /** Sentences kept after each selected one. @default 1 */
  contextAfter?: number;
  /** Splits text into sentences. @default splitSentences (Chinese and English, via Intl.Segmenter) */
  splitter?: (text: string) => string[];
  /**
   * A node where no sentence passes: throw {@link OptimizerZeroSentencesError} (as LlamaIndex does), keep
   * its best sentence with its context, or drop the node. The choice shows in the `postprocess-end` event.
   * @default "error"
   */
  onEmpty?: OptimizerOnEmpty;
  /** Distinct sentences per `getTextEmbeddings` call, across nodes. @default 100 */
  batchSize?: number;
  /** @default "cosine" */
  similarityMode?: SimilarityMode;
}

interface NodeReport {
  id: string;
  sentences: number;
  kept: number;
  tokensBefore: number;
  tokensAfter: number;
  fallback?: "keep_best" | "drop_node";
}

/**
 * Shortens each node to the sentences most similar to the query, with `contextBefore`/`contextAfter`
 * neighbours, like LlamaIndex's `SentenceEmbeddingOptimizer`. The metadata header is split and scored
 * with the text (as in LlamaIndex), but the new node's text holds only kept sentences of its own text:
 * the header is rendered again from the unchanged metadata, so the model never sees it twice.
 *
 * Differs from LlamaIndex: kept sentences stay in document order and appear once even where windows
 * overlap; the caller's nodes are never changed (new nodes keep ids, metadata and scores); sentences of
 * all nodes are embedded together in batches; `onEmpty` offers alternatives to the error.
 * @example new SentenceEmbeddingOptimizer({ embedModel: index.embedModel, percentileCutoff: 0.5 })
 */
export class SentenceEmbeddingOptimizer implements NodePostprocessor {
  readonly name = "SentenceEmbeddingOptimizer";
  readonly percentileCutoff: number | undefined;
  readonly thresholdCutoff: number | undefined;
  readonly contextBefore: number;
  readonly contextAfter: number;
  readonly onEmpty: OptimizerOnEmpty;
  readonly batchSize: number;
  readonly similarityMode: SimilarityMode;
  private readonly embedModel: Embedder;
  private readonly splitter: (text: string) => string[];

  constructor(options: SentenceEmbeddingOptimizerOptions = {}) {
    const {
      embedModel = new HashingEmbedder(),
      percentileCutoff,
      thresholdCutoff,
      contextBefore = 1,
      contextAfter = 1,
      splitter = splitTrimmed,
      onEmpty = "error",
      batchSize = 100,
      similarityMode = "cosine",
    } = optionsOf("options", options, "{ percentileCutoff?, thresholdCutoff?, embedModel?, … }");
    validateOptimizerOptions({
      embedModel,
      percentileCutoff,
      thresholdCutoff,
      contextBefore,
      contextAfter,
      splitter,
      onEmpty,
      batchSize,
    });
    this.embedModel = embedModel;
    this.percentileCutoff = percentileCutoff;
    this.thresholdCutoff = thresholdCutoff;
    this.contextBefore = contextBefore;
    this.contextAfter = contextAfter;
    this.splitter = splitter;
    this.onEmpty = onEmpty;
    this.batchSize = batchSize;
    this.similarityMode = similarityMode;
  }

  async postprocessNodes(
    nodes: NodeWithScore[],
    options: Partial<PostprocessOptions> = {},
  ): Promise<NodeWithScore[]> {
    checkNodesWithScore(nodes, "nodes");
    const {
      query,
      signal,
      onEvent,
      queryEmbeddings,
      tokenizer: eventTokenizer,
    } = optionsOf("options", options, "{ query?, signal?, onEvent? }");
    checkQuery(
      query,
      'The optimizer keeps the sentences closest to the query, so it needs one: postprocessNodes(nodes, { query: "…" }).',
    );
    signal?.throwIfAborted();
    const started = performance.now();
    const analysed = nodes.map((item) => ({
      item,
      header: this.split(item.node.getMetadataStr(MetadataMode.LLM)),
      text: this.split(item.node.text),
    }));
    let embeddings: SentenceEmbeddings | undefined;
    let queryEmbedding: number[] = [];
    if (analysed.some((node) => node.text.length > 0)) {
      const embedOptions = signal ? { signal } : {};
      queryEmbedding = await (queryEmbeddings
        ? queryEmbeddings.get(this.embedModel, query, embedOptions)
        : this.embedModel.getQueryEmbedding(query, embedOptions));
      embeddings = await embedSentences({
        embedModel: this.embedModel,
        texts: analysed.flatMap((node) => (node.text.length > 0 ? [...node.header, ...node.text] : [])),
        batchSize: this.batchSize,
        signal,
      });
    }
    const tokenizer = resolveTokenizer(eventTokenizer);
    const result: NodeWithScore[] = [];
    const reports: NodeReport[] = [];
    for (const { item, header, text } of analysed) {
      const { kept, fallback } =
        embeddings === undefined || text.length === 0
          ? { kept: text.map((_, index) => index), fallback: undefined }
          : this.select(item.node.id, header, text, queryEmbedding, embeddings);
      const optimized =
        kept === undefined
          ? undefined
          : kept.length === text.length
            ? { ...item }
            : withText(item, joinSentences(kept.map((index) => text[index] as string)));
      if (optimized) result.push(optimized);
      if (onEvent) {
        const report: NodeReport = {
          id: item.node.id,
          sentences: text.length,
          kept: kept?.length ?? 0,
          tokensBefore: countNodeTokens(item, tokenizer),
          tokensAfter: optimized ? countNodeTokens(optimized, tokenizer) : 0,
        };
        if (fallback) report.fallback = fallback;
        reports.push(report);
      }
    }
    onEvent?.({
      type: "postprocess-end",
      name: this.name,
      nodesBefore: nodes.length,
      nodesAfter: result.length,
      tokensBefore: reports.reduce((sum, report) => sum + report.tokensBefore, 0),
      tokensAfter: reports.reduce((sum, report) => sum + report.tokensAfter, 0),
      durationMs: performance.now() - started,
      detail: {
        onEmpty: this.onEmpty,
        embeddingCalls: embeddings?.calls ?? 0,
        sentencesEmbedded: embeddings?.distinct ?? 0,
        nodes: reports,
      },
    });
    return result;
  }

  /** Indices of the text sentences to keep, or `undefined` to drop the node. */
  private select(
    nodeId: string,
    header: string[],
    text: string[],
    queryEmbedding: number[],
    embeddings: SentenceEmbeddings,
  ): { kept: number[] | undefined; fallback: "keep_best" | "drop_node" | undefined } {
    const sentences = [...header, ...text];
    const vectors = sentences.map((sentence) => embeddings.get(sentence));
    const textIndices = (centers: number[]) =>
      expandWindows(centers, sentences.length, this.contextBefore, this.contextAfter)
        .filter((index) => index >= header.length)
        .map((index) => index - header.length);
    const passed = passingSentences({
      queryEmbedding,
      embeddings: vectors,
      percentileCutoff: this.percentileCutoff,
      thresholdCutoff: this.thresholdCutoff,
      mode: this.similarityMode,
    });
    const kept = textIndices(passed);
    if (kept.length > 0) return { kept, fallback: undefined };
    if (this.onEmpty === "drop_node") return { kept: undefined, fallback: "drop_node" };
    let best = header.length;
    let bestSimilarity = Number.NEGATIVE_INFINITY;
    for (let index = header.length; index < sentences.length; index++) {
      const score = similarity(queryEmbedding, vectors[index] as number[], this.similarityMode);
      if (score > bestSimilarity) [best, bestSimilarity] = [index, score];
    }
    if (this.onEmpty === "keep_best") return { kept: textIndices([best]), fallback: "keep_best" };
    throw new OptimizerZeroSentencesError({
      nodeId,
      sentenceCount: text.length,
      bestSimilarity,
      thresholdCutoff: this.thresholdCutoff,
    });
  }

  private split(text: string): string[] {
    if (text === "") return [];
    const sentences = this.splitter(text);
    if (!Array.isArray(sentences)) {
      throw new InvalidArgumentError({
        parameter: "splitter",
        value: sentences,
        expected: "return an array of strings",
      });
    }
    return sentences.filter((sentence) => typeof sentence === "string" && sentence.trim() !== "");
  }
}

function splitTrimmed(text: string): string[] {
  return splitSentences(text, { trim: true });
}

function withText(item: NodeWithScore, text: string): NodeWithScore {
  const node = item.node.with({ text });
  return item.score === undefined ? { node } : { node, score: item.score };
}
