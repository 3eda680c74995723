import type { Tracer } from "@opentelemetry/api";
import type { Embedder } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEventHandler } from "../events/events.js";
import type { NodePostprocessor } from "../postprocessor/types.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import type { SynthesizerBuildOptions } from "../query-engine/engine-options.js";
import type { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import type { QueryOptions, Retriever } from "../retrieval/retriever.js";
import { checkNodesWithScore } from "../schema/check-text-nodes.js";
import type { NodeWithScore, TextNode } from "../schema/text-node.js";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import type { SynthesisResponse } from "../synthesizer/types.js";
import type { TokenizerLike } from "../tokenizer/tokenizer.js";
import { type CitationReport, checkCitations } from "./check-citations.js";
import type { CitationJudge } from "./citation-judge.js";
import { createCitationNodes } from "./citation-nodes.js";
import {
  CITATION_QA_TEMPLATE,
  CITATION_REFINE_TEMPLATE,
  DEFAULT_CITATION_CHUNK_OVERLAP,
  DEFAULT_CITATION_CHUNK_SIZE,
} from "./citation-prompts.js";
import type { CitationSource } from "./citation-source.js";
import { CitationTextCleaner } from "./citation-text-cleaner.js";
import { citeVerbatimQuoteMarkers } from "./cite-verbatim-quotes.js";
import { CitingRetrieverQueryEngine } from "./citing-retriever-query-engine.js";

/** Options of {@link CitationQueryEngine}. */
export type CitationQueryEngineOptions = Omit<
  SynthesizerBuildOptions,
  "textQaTemplate" | "refineTemplate" | "summaryTemplate" | "outputSchema" | "structuredAnswerFiltering"
> & {
  /** Finds the nodes for a query. */
  retriever: Retriever;
  /** Run in list order on the retrieved nodes, before they are cut into citation pieces. @default [] */
  nodePostprocessors?: readonly NodePostprocessor[] | undefined;
  /** Size of a citation piece in tokens: smaller pieces give finer citations. @default 512 */
  citationChunkSize?: number | undefined;
  /** Tokens a piece repeats from the previous one. @default 20 */
  citationChunkOverlap?: number | undefined;
  /** Cuts nodes into pieces instead of a `SentenceSplitter` of the two sizes above. */
  textSplitter?: Pick<SentenceSplitter, "splitText"> | undefined;
  /** The first-answer prompt; its `{context_str}` receives the `Source N:` pieces. @default CITATION_QA_TEMPLATE */
  citationQaTemplate?: BasePromptTemplate | undefined;
  /** The refine prompt (refine, compact). @default CITATION_REFINE_TEMPLATE */
  citationRefineTemplate?: BasePromptTemplate | undefined;
  /** The summary prompt of tree_summarize. @default the citation QA prompt (LlamaIndex keeps its default summary prompt) */
  citationSummaryTemplate?: BasePromptTemplate | undefined;
  /**
   * Cite an answer made of verbatim quotes (the offline `ExtractiveLLM`'s) with {@link citeVerbatimQuotes}: each
   * quote gets the number of the piece it was copied from. Streaming then yields the answer once, at the end.
   * @default false
   */
  citeVerbatimQuotes?: boolean | undefined;
  /** Adds a cosine score to each citation's support. */
  embedModel?: Embedder | undefined;
  /**
   * Asks a model, per citation, whether the cited piece supports the sentence (`llmCitationJudge`); its YES/NO
   * decides `unsupported`. Its calls are extra model calls, counted in `citations.judgeUsage`.
   */
  judge?: CitationJudge | undefined;
  /** Share of a cited sentence's content terms its source must hold. @default 0.5 */
  supportThreshold?: number | undefined;
  /** Cosine similarity that counts as support when the lexical share falls short. @default 0.8 */
  cosineThreshold?: number | undefined;
  onEvent?: RagsynthEventHandler | undefined;
  tracer?: Tracer | undefined;
  /** Counts the splitter's tokens and node tokens for events. @default the model's encoding, or "cl100k_base" */
  tokenizer?: TokenizerLike | undefined;
};

/** A finished answer with its citations. `response` is the text to show: invalid markers removed. */
export interface CitationResponse extends SynthesisResponse {
  citations: CitationReport;
}

/** A streaming answer with citations: `textStream` already has invalid markers removed. */
export interface StreamingCitationResponse {
  sourceNodes: NodeWithScore[];
  /** The numbered pieces, known before the first delta. */
  sources: CitationSource[];
  textStream: AsyncIterable<string>;
  response: Promise<CitationResponse>;
}

/**
 * Answers with numbered citations and checks them: LlamaIndex's `CitationQueryEngine` (retrieved nodes cut into
 * `Source N:` pieces, its citation prompts), plus every `[N]` marker resolved to its piece, invalid ones removed
 * and reported, and each cited sentence scored against its source.
 * Differs from LlamaIndex: tree_summarize also uses the citation prompt, so summaries keep their markers;
 * there is no global `Settings`.
 * @example
 * const engine = new CitationQueryEngine({ retriever, llm, citationChunkSize: 256 });
 * const { response, citations } = await engine.query({ query: "When is water wet?" });
 */
export class CitationQueryEngine {
  readonly engine: RetrieverQueryEngine;
  private readonly sourceOf = new WeakMap<TextNode, CitationSource>();
  private readonly citeQuotes: boolean;
  private readonly check: Pick<
    CitationQueryEngineOptions,
    "embedModel" | "supportThreshold" | "cosineThreshold" | "judge"
  >;

  constructor(options: CitationQueryEngineOptions) {
    const given = optionsOf("options", options, "{ retriever, llm, citationChunkSize?, … }");
    const {
      citationChunkSize = DEFAULT_CITATION_CHUNK_SIZE,
      citationChunkOverlap = DEFAULT_CITATION_CHUNK_OVERLAP,
      textSplitter,
      citationQaTemplate = CITATION_QA_TEMPLATE,
      citationRefineTemplate = CITATION_REFINE_TEMPLATE,
      citationSummaryTemplate = citationQaTemplate,
      embedModel,
      supportThreshold,
      cosineThreshold,
      judge,
      citeVerbatimQuotes: citeQuotes = false,
      nodePostprocessors = [],
      ...rest
    } = given;
    checkInteger("citationChunkSize", citationChunkSize, 1);
    checkInteger("citationChunkOverlap", citationChunkOverlap, 0);
    if (citationChunkOverlap > citationChunkSize) {
      throw new InvalidArgumentError({
        parameter: "citationChunkOverlap",
        value: citationChunkOverlap,
        expected: `be at most \`citationChunkSize\` (${citationChunkSize})`,
      });
    }
    if (textSplitter !== undefined && typeof textSplitter?.splitText !== "function") {
      throw new InvalidArgumentError({
        parameter: "textSplitter",
        value: textSplitter,
        expected: "be a splitter with splitText(text): string[]",
        hint: "new SentenceSplitter({ chunkSize, chunkOverlap }) is one.",
      });
    }
    const tokenizer = given.tokenizer ?? given.llm?.metadata?.tokenizer;
    const splitter =
      textSplitter ??
      new SentenceSplitter({
        chunkSize: citationChunkSize,
        chunkOverlap: citationChunkOverlap,
        ...(tokenizer ? { tokenizer } : {}),
      });
    const chunker: NodePostprocessor = {
      name: "CitationChunker",
      postprocessNodes: async (nodes) => {
        const cited = createCitationNodes({ nodes, splitter });
        cited.nodes.forEach(({ node }, index) => {
          const source = cited.sources[index];
          if (source) this.sourceOf.set(node, source);
        });
        return cited.nodes;
      },
    };
    this.engine = new CitingRetrieverQueryEngine(
      {
        ...rest,
        textQaTemplate: citationQaTemplate,
        refineTemplate: citationRefineTemplate,
        summaryTemplate: citationSummaryTemplate,
        nodePostprocessors: [...nodePostprocessors, chunker],
      },
      (response, signal) => this.withCitations(response, signal),
    );
    this.check = { embedModel, supportThreshold, cosineThreshold, judge };
    this.citeQuotes = citeQuotes;
  }

  /** The numbered pieces behind a response's source nodes. */
  sourcesOf(sourceNodes: readonly NodeWithScore[]): CitationSource[] {
    checkNodesWithScore(sourceNodes, "sourceNodes");
    return sourceNodes.flatMap(({ node }) => {
      const source = this.sourceOf.get(node);
      return source ? [source] : [];
    });
  }

  /** Retrieves, cuts into pieces, synthesizes, then resolves and checks the citations. */
  async query(options: QueryOptions): Promise<CitationResponse> {
    // The citing engine resolved and checked the citations inside its query span.
    return (await this.engine.query(options)) as CitationResponse;
  }

  /** As {@link query}, streaming: a marker split across deltas is held back until complete. */
  async stream(options: QueryOptions): Promise<StreamingCitationResponse> {
    const streaming = await this.engine.stream(options);
    const sources = this.sourcesOf(streaming.sourceNodes);
    const citeQuotes = this.citeQuotes;
    async function* clean(): AsyncGenerator<string> {
      if (citeQuotes) {
        let answer = "";
        for await (const delta of streaming.textStream) answer += delta;
        // Only the markers added are citations; the quotes are shown as they are (see withCitations).
        const shown = citeVerbatimQuoteMarkers({ answer, sources }).text;
        if (shown !== "") yield shown;
        return;
      }
      const cleaner = new CitationTextCleaner({ sourceCount: sources.length });
      for await (const delta of streaming.textStream) {
        const shown = cleaner.push(delta);
        if (shown !== "") yield shown;
      }
      const rest = cleaner.end();
      if (rest !== "") yield rest;
    }
    const response = streaming.response as Promise<CitationResponse>;
    // A stream broken off early rejects `response`; that is only an error for a caller who awaits it.
    response.catch(() => undefined);
    return { sourceNodes: streaming.sourceNodes, sources, textStream: clean(), response };
  }

  private async withCitations(
    response: SynthesisResponse,
    signal: AbortSignal | undefined,
  ): Promise<CitationResponse> {
    const sources = this.sourcesOf(response.sourceNodes);
    const cited = this.citeQuotes
      ? citeVerbatimQuoteMarkers({ answer: response.response, sources })
      : undefined;
    const { text, report } = await checkCitations({
      text: cited ? cited.text : response.response,
      ...(cited ? { markers: cited.markers } : {}),
      sources,
      ...this.check,
      ...(signal ? { signal } : {}),
    });
    return { ...response, response: text, citations: report, toString: () => text };
  }
}
