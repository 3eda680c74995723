import { AsyncLocalStorage } from "node:async_hooks";
import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import { Document } from "@langchain/core/documents";
import { patchConfig, Runnable, type RunnableConfig } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { QueryOptions } from "../retrieval/retriever.js";
import type { NodeWithScore } from "../schema/text-node.js";
import type {
  StreamingSynthesisResponse,
  SynthesisResponse,
  SynthesizeOptions,
} from "../synthesizer/types.js";
import { documentToNode, type LangChainDocumentLike } from "./document-to-node.js";

/** What {@link toLangChainRunnable} wraps: a query engine (retrieves itself) or a synthesizer (is given sources). */
export type RunnableTarget =
  | {
      query(options: QueryOptions): Promise<SynthesisResponse>;
      stream(options: QueryOptions): Promise<StreamingSynthesisResponse>;
    }
  | {
      synthesize(options: SynthesizeOptions): Promise<SynthesisResponse>;
      stream(options: SynthesizeOptions): StreamingSynthesisResponse;
    };

/**
 * The input of the runnable: the question alone (query engines), or the question with its sources as
 * ragsynth nodes or LangChain documents (synthesizers; what a LangChain retriever step produces).
 */
export type RagsynthRunnableInput =
  | string
  | { query: string; nodes?: NodeWithScore[]; documents?: LangChainDocumentLike[] };

function toQuery(input: RagsynthRunnableInput): { query: string; nodes?: NodeWithScore[] } {
  if (typeof input === "string") return { query: input };
  if (typeof input?.query !== "string") {
    throw new InvalidArgumentError({
      parameter: "input",
      value: input,
      expected: "be a question string or { query, nodes | documents }",
      hint: "Pipe a map such as { query: new RunnablePassthrough(), documents: retriever } into the runnable.",
    });
  }
  const fromDocuments = input.documents?.map((document, index) =>
    documentToNode(document, { parameter: `input.documents[${index}]` }),
  );
  const nodes = input.nodes ?? fromDocuments;
  return nodes ? { query: input.query, nodes } : { query: input.query };
}

/**
 * Runs `work` with this run's child callbacks as LangChain's implicit config (its async-local storage), so the
 * LangChain chat models and retrievers ragsynth calls inside (`fromLangChainChatModel`, `fromLangChainRetriever`)
 * report their runs as children of this one: one trace in LangSmith, not a root per model call.
 */
function asChildRuns<T>(
  config: Partial<RunnableConfig> | undefined,
  runManager: CallbackManagerForChainRun | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (runManager === undefined) return work();
  // What @langchain/core does when its dispatch or context module is loaded (idempotent): without it, its
  // storage is a mock that keeps nothing, and the child runs would have no parent.
  AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new AsyncLocalStorage());
  return AsyncLocalStorageProviderSingleton.runWithConfig(
    patchConfig(config, { callbacks: runManager.getChild() }),
    work,
  );
}

/** What both runnables share: the wrapped engine or synthesizer, and `invoke` through LangChain's run bookkeeping. */
abstract class TargetRunnable<Output> extends Runnable<RagsynthRunnableInput, Output> {
  override lc_namespace = ["ragsynth", "langchain"];
  protected readonly target: RunnableTarget;

  constructor(target: RunnableTarget) {
    super();
    this.target = target;
  }

  invoke(input: RagsynthRunnableInput, options?: Partial<RunnableConfig>): Promise<Output> {
    return this._callWithConfig(this.answer.bind(this), input, options);
  }

  protected async answer(
    input: RagsynthRunnableInput,
    config?: Partial<RunnableConfig>,
    runManager?: CallbackManagerForChainRun,
  ): Promise<Output> {
    const { query, nodes } = toQuery(input);
    return this.output(await respond(this.target, query, nodes, config, runManager));
  }

  /** The runnable's output from the engine's or synthesizer's response. */
  protected abstract output(response: SynthesisResponse): Output;
}

/**
 * A ragsynth query engine or synthesizer as a LangChain.js `Runnable<input, string>`: `invoke`, `stream`
 * (the answer's text deltas), `batch`, callbacks and the abort signal all work, so it slots into an LCEL
 * chain. The output is the answer text; use the engine directly when you need the source nodes.
 */
export class RagsynthRunnable extends TargetRunnable<string> {
  static override lc_name() {
    return "RagsynthRunnable";
  }

  override async *_streamIterator(input: RagsynthRunnableInput, options?: Partial<RunnableConfig>) {
    async function* single() {
      yield input;
    }
    yield* this._transformStreamWithConfig(single(), this.deltas.bind(this), options);
  }

  protected output(response: SynthesisResponse): string {
    return response.response;
  }

  private async *deltas(
    inputs: AsyncGenerator<RagsynthRunnableInput>,
    runManager?: CallbackManagerForChainRun,
    config?: Partial<RunnableConfig>,
  ): AsyncGenerator<string> {
    let input: RagsynthRunnableInput | undefined;
    for await (const chunk of inputs) input = chunk;
    const { query, nodes } = toQuery(input as RagsynthRunnableInput);
    const signal = config?.signal;
    const withSignal = signal ? { signal } : {};
    const target = this.target;
    const streaming = await asChildRuns(config, runManager, async () =>
      "synthesize" in target
        ? target.stream({ query, nodes: this.requireNodes(nodes), ...withSignal })
        : await target.stream({ query, ...withSignal }),
    );
    yield* streaming.textStream;
    await streaming.response;
  }

  private requireNodes(nodes: NodeWithScore[] | undefined): NodeWithScore[] {
    return requireNodes(nodes);
  }
}

function requireNodes(nodes: NodeWithScore[] | undefined): NodeWithScore[] {
  if (nodes) return nodes;
  throw new InvalidArgumentError({
    parameter: "input",
    value: nodes,
    expected: "carry nodes or documents when the runnable wraps a synthesizer",
    hint: "Pass { query, documents }, or wrap a query engine to retrieve from the question alone.",
  });
}

function respond(
  target: RunnableTarget,
  query: string,
  nodes: NodeWithScore[] | undefined,
  config: Partial<RunnableConfig> | undefined,
  runManager: CallbackManagerForChainRun | undefined,
): Promise<SynthesisResponse> {
  const signal = config?.signal;
  const withSignal = signal ? { signal } : {};
  return asChildRuns(config, runManager, () =>
    "synthesize" in target
      ? target.synthesize({ query, nodes: requireNodes(nodes), ...withSignal })
      : target.query({ query, ...withSignal }),
  );
}

/**
 * The answer with what it was drawn from, as LangChain's `createRetrievalChain` returns `{ answer, context }`:
 * `sources` are ragsynth's source nodes with their scores, `context` the same as LangChain `Document`s (the
 * node's text as `pageContent`, its metadata plus `score`).
 */
export interface RagsynthAnswerWithSources {
  answer: string;
  sources: NodeWithScore[];
  context: Document[];
}

/** {@link toLangChainRunnable} with `{ withSources: true }`: a `Runnable<input, { answer, sources, context }>`. */
export class RagsynthSourcesRunnable extends TargetRunnable<RagsynthAnswerWithSources> {
  static override lc_name() {
    return "RagsynthSourcesRunnable";
  }

  protected output(response: SynthesisResponse): RagsynthAnswerWithSources {
    return {
      answer: response.response,
      sources: response.sourceNodes,
      context: response.sourceNodes.map(
        ({ node, score }) =>
          new Document({
            pageContent: "text" in node ? String(node.text) : "",
            metadata: { ...node.metadata, ...(score === undefined ? {} : { score }), id: node.id },
          }),
      ),
    };
  }
}

/**
 * Wraps a ragsynth query engine or synthesizer as a LangChain.js Runnable, for LCEL chains. The output is the
 * answer's text; with `{ withSources: true }` it is `{ answer, sources, context }` (see
 * {@link RagsynthAnswerWithSources}). Models and retrievers from `fromLangChainChatModel`/`fromLangChainRetriever`
 * called inside report their runs as children of the runnable's run.
 * @example
 * const chain = RunnableMap.from({ query: new RunnablePassthrough(), documents: store.asRetriever() })
 *   .pipe(toLangChainRunnable(getResponseSynthesizer({ llm, responseMode: "tree_summarize" })));
 * const answer = await chain.invoke("What is ragsynth?");
 */
export function toLangChainRunnable(
  target: RunnableTarget,
  options?: { withSources?: false },
): RagsynthRunnable;
export function toLangChainRunnable(
  target: RunnableTarget,
  options: { withSources: true },
): RagsynthSourcesRunnable;
export function toLangChainRunnable(
  target: RunnableTarget,
  { withSources = false }: { withSources?: boolean } = {},
): RagsynthRunnable | RagsynthSourcesRunnable {
  const record = target as Partial<Record<"query" | "synthesize" | "stream", unknown>> | null;
  const usable =
    typeof record?.stream === "function" &&
    (typeof record.query === "function" || typeof record.synthesize === "function");
  if (!usable) {
    throw new InvalidArgumentError({
      parameter: "target",
      value: target,
      expected: "be a query engine (query, stream) or a response synthesizer (synthesize, stream)",
      hint: "Pass index.asQueryEngine({ llm }) or getResponseSynthesizer({ llm }).",
    });
  }
  return withSources ? new RagsynthSourcesRunnable(target) : new RagsynthRunnable(target);
}
