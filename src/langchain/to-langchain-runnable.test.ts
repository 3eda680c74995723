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
