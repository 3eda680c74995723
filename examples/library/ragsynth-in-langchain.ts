// ragsynth inside LangChain.js: a ragsynth synthesizer as one step of an LCEL chain.
import { Document } from "@langchain/core/documents";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { RunnableMap, RunnablePassthrough } from "@langchain/core/runnables";
import { FakeRetriever } from "@langchain/core/utils/testing";
import { ExtractiveLLM, getResponseSynthesizer } from "ragsynth";
import { toLangChainRunnable } from "ragsynth/langchain";

export async function main() {
  // Any LangChain retriever (store.asRetriever()); a fixed one keeps the example offline.
  const retriever = new FakeRetriever({
    output: [
      new Document({ pageContent: "Paris is the capital of France. It lies on the Seine." }),
      new Document({ pageContent: "Berlin is the capital of Germany." }),
    ],
  });
  const synthesizer = getResponseSynthesizer({ llm: new ExtractiveLLM(), responseMode: "tree_summarize" });
  const chain = RunnableMap.from({ query: new RunnablePassthrough<string>(), documents: retriever })
    .pipe(toLangChainRunnable(synthesizer)) // input { query, documents } → the answer text
    .pipe(new StringOutputParser());

  const answer = await chain.invoke("What is the capital of France?");
  console.log(answer); // Paris is the capital of France.
  let streamed = "";
  for await (const delta of await chain.stream("What is the capital of France?")) streamed += delta;
  return { answer, streamed };
}
