import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { Document } from "@langchain/core/documents";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { RunnableLambda, RunnableMap, RunnablePassthrough } from "@langchain/core/runnables";
import { FakeRetriever } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import { MockLLM } from "../testing/mock-llm.js";
import { toLangChainRunnable } from "./to-langchain-runnable.js";

const paris = new Document({
  pageContent: "Paris is the capital of France.",
  metadata: { source: "fr.txt" },
});
const berlin = new Document({
  pageContent: "Berlin is the capital of Germany.",
  metadata: { source: "de.txt" },
});

class RecordingHandler extends BaseCallbackHandler {
  name = "recording";
  readonly seen: string[] = [];
  override handleChainStart() {
    this.seen.push("start");
  }
  override handleChainEnd(outputs: unknown) {
    this.seen.push(`end:${JSON.stringify(outputs)}`);
  }
}

describe("toLangChainRunnable (real @langchain/core)", () => {
  it("slots a synthesizer into an LCEL chain after a LangChain retriever", async () => {
    const synthesizer = getResponseSynthesizer({ llm: new ExtractiveLLM(), responseMode: "compact" });
    const chain = RunnableMap.from({
      query: new RunnablePassthrough<string>(),
      documents: new FakeRetriever({ output: [paris, berlin] }),
    })
      .pipe(toLangChainRunnable(synthesizer))
      .pipe(new StringOutputParser());
    expect(await chain.invoke("What is the capital of France?")).toContain("Paris is the capital of France.");
  });

  it("streams the answer's deltas, and the joined stream equals invoke's answer", async () => {
    const llm = new MockLLM({ response: "Paris is the capital.", streamBy: "word" });
    const runnable = toLangChainRunnable(getResponseSynthesizer({ llm, responseMode: "compact" }));
    const input = { query: "Capital?", nodes: [{ node: new TextNode({ text: "Paris." }) }] };
    const deltas: string[] = [];
    for await (const delta of await runnable.stream(input)) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(await runnable.invoke(input));
  });

  it("batches questions through a query engine, and reports each run to callbacks", async () => {
    const engine = new RetrieverQueryEngine({
      retriever: {
        retrieve: async () => [{ node: new TextNode({ text: "Paris is the capital of France." }) }],
      },
      llm: new ExtractiveLLM(),
    });
    const handler = new RecordingHandler();
    const answers = await toLangChainRunnable(engine).batch(
      ["Capital of France?", "What is the capital of France?"],
      {
        callbacks: [handler],
      },
    );
    expect(answers).toHaveLength(2);
    for (const answer of answers) expect(answer).toContain("Paris");
    expect(handler.seen.filter((event) => event === "start")).toHaveLength(2);
    expect(handler.seen.filter((event) => event.startsWith("end:"))).toHaveLength(2);
  });

  it("hands the abort signal to the synthesis", async () => {
    const llm = new MockLLM({ response: "never" });
    const runnable = toLangChainRunnable(getResponseSynthesizer({ llm }));
    const input = { query: "q", nodes: [{ node: new TextNode({ text: "x" }) }] };
    await expect(runnable.invoke(input, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
    expect(llm.calls).toHaveLength(0);
  });

  it("composes with other runnables and rejects bad input and targets with typed errors", async () => {
    const synthesizer = getResponseSynthesizer({ llm: new ExtractiveLLM() });
    const runnable = toLangChainRunnable(synthesizer);
    await expect(runnable.invoke("no sources")).rejects.toThrow(/carry nodes or documents/);
    await expect(runnable.invoke({} as never)).rejects.toThrow(
      /question string or \{ query, nodes \| documents \}/,
    );
    expect(() => toLangChainRunnable({} as never)).toThrow(/query engine .* or a response synthesizer/);
    const upper = RunnableLambda.from((text: string) => text.toUpperCase());
    const chained = runnable.pipe(upper);
    expect(await chained.invoke({ query: "capital", documents: [paris] })).toContain("PARIS");
  });
});

describe("callbacks reach the models and retrievers inside a ragsynth runnable", () => {
  class RunTree extends BaseCallbackHandler {
    name = "run-tree";
    readonly chains: { runId: string; parentRunId: string | undefined; name: string }[] = [];
    readonly models: { runId: string; parentRunId: string | undefined }[] = [];
    readonly retrievers: { runId: string; parentRunId: string | undefined }[] = [];
    // @langchain/core calls it as (chain, inputs, runId, parentRunId, tags, metadata, runType, runName), whatever
    // its declaration's names say.
    override handleChainStart(
      chain: { id?: string[] },
      _inputs: unknown,
      runId: string,
      parentRunId?: string,
    ) {
      this.chains.push({ runId, parentRunId, name: chain.id?.at(-1) ?? "" });
    }
    override handleChatModelStart(_llm: unknown, _messages: unknown, runId: string, parentRunId?: string) {
      this.models.push({ runId, parentRunId });
    }
    override handleRetrieverStart(_retriever: unknown, _query: string, runId: string, parentRunId?: string) {
      this.retrievers.push({ runId, parentRunId });
    }
  }

  it("a wrapped chat model's and retriever's runs are children of the ragsynth run (one trace, not roots)", async () => {
    const { FakeListChatModel } = await import("@langchain/core/utils/testing");
    const { fromLangChainChatModel } = await import("./from-langchain-chat-model.js");
    const { fromLangChainRetriever } = await import("./from-langchain-retriever.js");
    const llm = fromLangChainChatModel(new FakeListChatModel({ responses: ["Paris."] }), {
      contextWindow: 4096,
    });
    const engine = new RetrieverQueryEngine({
      retriever: fromLangChainRetriever(new FakeRetriever({ output: [paris] })),
      responseSynthesizer: getResponseSynthesizer({ llm, responseMode: "compact" }),
    });
    const tree = new RunTree();
    expect(await toLangChainRunnable(engine).invoke("Capital of France?", { callbacks: [tree] })).toBe(
      "Paris.",
    );
    const root = tree.chains.find(({ name }) => name === "RagsynthRunnable");
    expect(root?.parentRunId).toBeUndefined();
    expect(tree.models).toEqual([{ runId: expect.any(String), parentRunId: root?.runId }]);
    expect(tree.retrievers).toEqual([{ runId: expect.any(String), parentRunId: root?.runId }]);

    const streamTree = new RunTree();
    const deltas: string[] = [];
    for await (const delta of await toLangChainRunnable(engine).stream("Again?", {
      callbacks: [streamTree],
    })) {
      deltas.push(delta);
    }
    const streamRoot = streamTree.chains.find(({ name }) => name === "RagsynthRunnable");
    expect(streamTree.models.map(({ parentRunId }) => parentRunId)).toEqual([streamRoot?.runId]);
  });
});

describe("toLangChainRunnable with { withSources: true }", () => {
  it("answers { answer, sources, context } as createRetrievalChain answers { answer, context }", async () => {
    const synthesizer = getResponseSynthesizer({ llm: new ExtractiveLLM(), responseMode: "compact" });
    const chain = RunnableMap.from({
      query: new RunnablePassthrough<string>(),
      documents: new FakeRetriever({ output: [paris, berlin] }),
    }).pipe(toLangChainRunnable(synthesizer, { withSources: true }));
    const result = await chain.invoke("What is the capital of France?");
    expect(result.answer).toContain("Paris is the capital of France.");
    expect(result.sources.map(({ node }) => node.metadata.source)).toEqual(["fr.txt", "de.txt"]);
    expect(result.context.map((document) => [document.pageContent, document.metadata.source])).toEqual([
      ["Paris is the capital of France.", "fr.txt"],
      ["Berlin is the capital of Germany.", "de.txt"],
    ]);
    expect(result.context[0]).toBeInstanceOf(Document);
  });
});
