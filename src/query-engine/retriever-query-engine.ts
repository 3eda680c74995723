import type { Span, Tracer } from "@opentelemetry/api";
import { QueryEmbeddings } from "../embedding/query-embeddings.js";
import { optionsOf } from "../errors/check-options.js";
import { checkQuery, checkQueryOptions } from "../errors/check-query.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEvent, RagsynthEventHandler } from "../events/events.js";
import { countNodesTokens } from "../postprocessor/count-node-tokens.js";
import type { NodePostprocessor } from "../postprocessor/types.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { type QueryOptions, RETRIEVE_HINT, type Retriever } from "../retrieval/retriever.js";
import type { NodeWithScore } from "../schema/text-node.js";
import type {
  ResponseSynthesizer,
  StreamingSynthesisResponse,
  SynthesisResponse,
} from "../synthesizer/types.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { captureContentFromEnv, rootContentAttributes } from "../tracing/gen-ai.js";
import { type ActiveSpan, defaultTracer, prepareTracer, startSpan } from "../tracing/start-span.js";
import { type RetrieverQueryEngineOptions, resolveSynthesizer } from "./engine-options.js";
import { runPostprocessors } from "./run-postprocessors.js";

const SYNTHESIZER_PREFIX = "response_synthesizer:";

const QUERY_HINT = 'Pass the question as query({ query: "…" }).';
const STREAM_HINT = 'Pass the question as stream({ query: "…" }).';

/**
 * Answers questions: retrieve, run the postprocessors in list order, synthesize. LlamaIndex's
 * `RetrieverQueryEngine`, with one signal shared by every step.
 * Differs from LlamaIndex: no global `Settings` (pass a synthesizer, or `llm` and `responseMode`), and
 * options are never silently ignored (`from_args` drops unknown keyword arguments).
 * @example
 * const engine = new RetrieverQueryEngine({ retriever, llm, responseMode: "tree_summarize",
 *   nodePostprocessors: [new SentenceEmbeddingOptimizer({ embedModel, percentileCutoff: 0.5 })] });
 * const { response, sourceNodes } = await engine.query({ query: "What is ragsynth?" });
 */
export class RetrieverQueryEngine<T = unknown> {
  readonly retriever: Retriever;
  readonly responseSynthesizer: ResponseSynthesizer<T>;
  readonly nodePostprocessors: readonly NodePostprocessor[];
  private readonly options: RetrieverQueryEngineOptions<T>;
  private readonly onEvent: RagsynthEventHandler | undefined;
  private readonly tokenizer: Tokenizer;

  constructor(given: RetrieverQueryEngineOptions<T>) {
    const options = optionsOf(
      "options",
      given,
      "{ retriever, responseSynthesizer?, llm?, nodePostprocessors?, … }",
    );
    const { retriever, nodePostprocessors = [], onEvent, tokenizer } = options;
    if (typeof retriever?.retrieve !== "function") {
      throw new InvalidArgumentError({
        parameter: "retriever",
        value: retriever,
        expected: "be a Retriever (an object with retrieve({ query, signal }))",
        hint: "index.asRetriever() gives one.",
      });
    }
    if (!Array.isArray(nodePostprocessors)) {
      throw new InvalidArgumentError({
        parameter: "nodePostprocessors",
        value: nodePostprocessors,
        expected: "be an array",
      });
    }
    for (const [index, postprocessor] of nodePostprocessors.entries()) {
      if (typeof postprocessor?.postprocessNodes !== "function" || typeof postprocessor.name !== "string") {
        throw new InvalidArgumentError({
          parameter: `nodePostprocessors[${index}]`,
          value: postprocessor,
          expected: "be a NodePostprocessor (name and postprocessNodes)",
        });
      }
    }
    this.responseSynthesizer = resolveSynthesizer(options);
    this.options = options;
    this.retriever = retriever;
    this.nodePostprocessors = [...nodePostprocessors];
    this.onEvent = onEvent;
    this.tokenizer = resolveTokenizer(
      tokenizer ?? ("llm" in options ? options.llm?.metadata.tokenizer : undefined),
    );
  }

  /**
   * The synthesizer's prompts keyed `response_synthesizer:<key>`, as LlamaIndex's query engines key them
   * (`response_synthesizer:text_qa_template`, …).
   */
  getPrompts(): Record<string, BasePromptTemplate> {
    const prompts: Record<string, BasePromptTemplate> = {};
    for (const [key, prompt] of Object.entries(this.responseSynthesizer.getPrompts()))
      prompts[`${SYNTHESIZER_PREFIX}${key}`] = prompt;
    return prompts;
  }

  /**
   * Replaces prompts by the keys {@link getPrompts} returns (`response_synthesizer:text_qa_template`).
   * @throws InvalidArgumentError for a key without the `response_synthesizer:` prefix or one the synthesizer lacks
   */
  updatePrompts(updates: Record<string, BasePromptTemplate>): void {
    const forSynthesizer: Record<string, BasePromptTemplate> = {};
    for (const [key, prompt] of Object.entries(updates ?? {})) {
      if (!key.startsWith(SYNTHESIZER_PREFIX)) {
        throw new InvalidArgumentError({
          parameter: `prompts.${key}`,
          value: prompt,
          expected: `be one of ${Object.keys(this.getPrompts())
            .map((name) => `\`${name}\``)
            .join(", ")}`,
          hint: "A query engine's prompt keys start with `response_synthesizer:`, as in LlamaIndex.",
        });
      }
      forSynthesizer[key.slice(SYNTHESIZER_PREFIX.length)] = prompt;
    }
    this.responseSynthesizer.updatePrompts(forSynthesizer);
  }

  /** A new engine with another retriever, sharing this one's synthesizer, postprocessors and settings. */
  withRetriever(retriever: Retriever): RetrieverQueryEngine<T> {
    const { onEvent, tracer, tokenizer } = this.options;
    return new RetrieverQueryEngine<T>({
      retriever,
      responseSynthesizer: this.responseSynthesizer,
      nodePostprocessors: this.nodePostprocessors,
      ...(onEvent ? { onEvent } : {}),
      ...(tracer ? { tracer } : {}),
      ...(tokenizer ? { tokenizer } : {}),
    });
  }

  /** The nodes the synthesizer would read: retrieved, then postprocessed (as LlamaIndex's `retrieve`). */
  async retrieve(options: QueryOptions): Promise<NodeWithScore[]> {
    checkQueryOptions(options, RETRIEVE_HINT);
    const { query, signal } = options;
    checkQuery(query, RETRIEVE_HINT);
    await prepareTracer(this.tracer());
    const root = startSpan(this.tracer(), "ragsynth.query_retrieve");
    try {
      const nodes = await this.retrieveAndPostprocess(query, signal, root);
      root.end();
      return nodes;
    } catch (error) {
      root.end(error);
      throw error;
    }
  }

  /** Retrieves, postprocesses and synthesizes; the response's sources are the nodes that survived postprocessing. */
  async query(options: QueryOptions): Promise<SynthesisResponse<T>> {
    checkNoStreamFlag(options);
    checkQueryOptions(options, QUERY_HINT);
    const { query, signal } = options;
    checkQuery(query, QUERY_HINT);
    await prepareTracer(this.tracer());
    const root = this.startQuery(query, false);
    let response: SynthesisResponse<T>;
    try {
      const nodes = await this.retrieveAndPostprocess(query, signal, root);
      signal?.throwIfAborted();
      const synthesized = await root.run(() =>
        this.responseSynthesizer.synthesize({ query, nodes, ...(signal ? { signal } : {}) }),
      );
      response = await root.run(() => this.finishResponse(synthesized, root.span, signal));
    } catch (error) {
      this.endQuery(root, query, error);
      throw error;
    }
    this.endQuery(root, query, undefined, response.response);
    return response;
  }

  /**
   * Retrieves and postprocesses, then starts streaming the answer. Resolves once the sources are known,
   * so retrieval errors reject here rather than mid-stream; `query-end` fires when the stream has ended.
   */
  async stream(options: QueryOptions): Promise<StreamingSynthesisResponse<T>> {
    checkQueryOptions(options, STREAM_HINT);
    const { query, signal } = options;
    checkQuery(query, STREAM_HINT);
    await prepareTracer(this.tracer());
    const root = this.startQuery(query, true);
    let streaming: StreamingSynthesisResponse<T>;
    try {
      const nodes = await this.retrieveAndPostprocess(query, signal, root);
      signal?.throwIfAborted();
      streaming = root.run(() =>
        this.responseSynthesizer.stream({ query, nodes, ...(signal ? { signal } : {}) }),
      );
    } catch (error) {
      this.endQuery(root, query, error);
      throw error;
    }
    const response = streaming.response.then((done) =>
      root.run(() => this.finishResponse(done, root.span, signal)),
    );
    response.then(
      (finished) => this.endQuery(root, query, undefined, finished.response),
      (error: unknown) => this.endQuery(root, query, error),
    );
    return { sourceNodes: streaming.sourceNodes, textStream: streaming.textStream, response };
  }

  /**
   * Runs inside the query span once the answer is complete (streamed or not), before the span ends: a
   * subclass checks or extends the response here and puts counts on the span (the citation engine does).
   * Returns the response unchanged.
   */
  protected async finishResponse(
    response: SynthesisResponse<T>,
    _span: Span,
    _signal: AbortSignal | undefined,
  ): Promise<SynthesisResponse<T>> {
    return response;
  }

  private async retrieveAndPostprocess(query: string, signal: AbortSignal | undefined, parent: ActiveSpan) {
    signal?.throwIfAborted();
    const span = startSpan(this.tracer(), "ragsynth.retrieve", {}, parent.context);
    const started = performance.now();
    this.emit({ type: "retrieve-start", query });
    // One per query: the retriever and the postprocessors embed the query once per shared model.
    const queryEmbeddings = new QueryEmbeddings();
    let nodes: NodeWithScore[];
    try {
      const retrieved: unknown = await span.run(() =>
        this.retriever.retrieve({ query, queryEmbeddings, ...(signal ? { signal } : {}) }),
      );
      if (!Array.isArray(retrieved)) {
        throw new InvalidArgumentError({
          parameter: "retriever",
          value: retrieved,
          expected: "return an array of NodeWithScore from retrieve()",
        });
      }
      nodes = retrieved as NodeWithScore[];
      const tokens = this.onEvent ? countNodesTokens(nodes, this.tokenizer) : 0;
      span.span.setAttributes({ "ragsynth.node_count": nodes.length, "ragsynth.tokens": tokens });
      span.end();
      this.emit({
        type: "retrieve-end",
        query,
        nodeCount: nodes.length,
        tokens,
        durationMs: performance.now() - started,
      });
    } catch (error) {
      span.end(error);
      throw error;
    }
    return runPostprocessors({
      nodes,
      postprocessors: this.nodePostprocessors,
      query,
      signal,
      queryEmbeddings,
      onEvent: this.onEvent,
      tokenizer: this.tokenizer,
      tracer: this.tracer(),
      parent: parent.context,
    });
  }

  private startQuery(query: string, streaming: boolean): ActiveSpan & { started: number } {
    const span = startSpan(this.tracer(), "ragsynth.query", {
      attributes: {
        "ragsynth.mode": this.responseSynthesizer.mode,
        "ragsynth.streaming": streaming,
        "ragsynth.postprocessors": this.nodePostprocessors.map((postprocessor) => postprocessor.name),
        "openinference.span.kind": "CHAIN",
        ...(this.captureContent() ? rootContentAttributes({ query }) : {}),
      },
    });
    this.emit({ type: "query-start", query });
    return { ...span, started: performance.now() };
  }

  private endQuery(root: ActiveSpan & { started: number }, query: string, error?: unknown, answer?: string) {
    if (answer !== undefined && this.captureContent()) {
      root.span.setAttributes(rootContentAttributes({ answer }));
    }
    root.end(error);
    const durationMs = performance.now() - root.started;
    this.emit(
      error === undefined
        ? { type: "query-end", query, durationMs }
        : { type: "query-end", query, durationMs, error },
    );
  }

  private emit(event: RagsynthEvent) {
    this.onEvent?.(event);
  }

  /** Whether the question and answer go on the root span: the engine's `captureContent`, else the environment's. */
  private captureContent(): boolean {
    return (this.options as { captureContent?: boolean }).captureContent ?? captureContentFromEnv();
  }

  private tracer(): Tracer {
    return this.options.tracer ?? defaultTracer();
  }
}

/** Throws for `query({ stream: true })`: streaming has its own method, and a silently ignored flag hides that. */
function checkNoStreamFlag(options: unknown): void {
  if (typeof options === "object" && options !== null && "stream" in options) {
    throw new InvalidArgumentError({
      parameter: "stream",
      value: (options as { stream?: unknown }).stream,
      expected: "not be passed to query()",
      hint: "To stream, call engine.stream({ query }) and read its textStream.",
    });
  }
}
