import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import { Runnable, type RunnableConfig } from "@langchain/core/runnables";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { QueryOptions } from "../query-engine/retriever.js";
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
 * A ragsynth query engine or synthesizer as a LangChain.js `Runnable<input, string>`: `invoke`, `stream`
 * (the answer's text deltas), `batch`, callbacks and the abort signal all work, so it slots into an LCEL
 * chain. The output is the answer text; use the engine directly when you need the source nodes.
 */
export class RagsynthRunnable extends Runnable<RagsynthRunnableInput, string> {
  override lc_namespace = ["ragsynth", "langchain"];
  private readonly target: RunnableTarget;

  static override lc_name() {
    return "RagsynthRunnable";
  }

  constructor(target: RunnableTarget) {
    super();
    this.target = target;
  }

  invoke(input: RagsynthRunnableInput, options?: Partial<RunnableConfig>): Promise<string> {
    return this._callWithConfig(this.answer.bind(this), input, options);
  }

  override async *_streamIterator(input: RagsynthRunnableInput, options?: Partial<RunnableConfig>) {
    async function* single() {
      yield input;
    }
    yield* this._transformStreamWithConfig(single(), this.deltas.bind(this), options);
  }

  private async answer(
    input: RagsynthRunnableInput,
    config?: Partial<RunnableConfig>,
    _runManager?: CallbackManagerForChainRun,
  ): Promise<string> {
    const { query, nodes } = toQuery(input);
    const signal = config?.signal;
    const withSignal = signal ? { signal } : {};
    if ("synthesize" in this.target) {
      const response = await this.target.synthesize({
        query,
        nodes: this.requireNodes(nodes),
        ...withSignal,
      });
      return response.response;
    }
    return (await this.target.query({ query, ...withSignal })).response;
  }

  private async *deltas(
    inputs: AsyncGenerator<RagsynthRunnableInput>,
    _runManager?: CallbackManagerForChainRun,
    config?: Partial<RunnableConfig>,
  ): AsyncGenerator<string> {
    let input: RagsynthRunnableInput | undefined;
    for await (const chunk of inputs) input = chunk;
    const { query, nodes } = toQuery(input as RagsynthRunnableInput);
    const signal = config?.signal;
    const withSignal = signal ? { signal } : {};
    const streaming =
      "synthesize" in this.target
        ? this.target.stream({ query, nodes: this.requireNodes(nodes), ...withSignal })
        : await this.target.stream({ query, ...withSignal });
    yield* streaming.textStream;
    await streaming.response;
  }

  private requireNodes(nodes: NodeWithScore[] | undefined): NodeWithScore[] {
    if (nodes) return nodes;
    throw new InvalidArgumentError({
      parameter: "input",
      value: nodes,
      expected: "carry nodes or documents when the runnable wraps a synthesizer",
      hint: "Pass { query, documents }, or wrap a query engine to retrieve from the question alone.",
    });
  }
}

/**
 * Wraps a ragsynth query engine or synthesizer as a LangChain.js Runnable, for LCEL chains.
 * @example
 * const chain = RunnableMap.from({ query: new RunnablePassthrough(), documents: store.asRetriever() })
 *   .pipe(toLangChainRunnable(getResponseSynthesizer({ llm, responseMode: "tree_summarize" })));
 * const answer = await chain.invoke("What is ragsynth?");
 */
export function toLangChainRunnable(target: RunnableTarget): RagsynthRunnable {
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
  return new RagsynthRunnable(target);
}
