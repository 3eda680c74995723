// Every function and class the package exports, called as plain JavaScript can call it with the wrong argument:
// nothing, undefined, null, a string, a number, an empty object. Each call either works or throws a RagsynthError
// (an InvalidArgumentError saying what was expected and how to fix it), never a TypeError from destructuring or
// reading a field of what arrived.

import * as ragsynth from "ragsynth";
import { RagsynthError } from "ragsynth";
import * as batch from "ragsynth/batch";
import * as extend from "ragsynth/extend";
import * as langchain from "ragsynth/langchain";
import * as testing from "ragsynth/testing";
import { describe, expect, it } from "vitest";

/** The package's entry points, as users import them. */
const ENTRIES: [string, Record<string, unknown>][] = [
  ["ragsynth", ragsynth],
  ["ragsynth/extend", extend],
  ["ragsynth/testing", testing],
  ["ragsynth/langchain", langchain],
  ["ragsynth/batch", batch],
];

const ARGUMENTS: [string, unknown[]][] = [
  ["()", []],
  ["(undefined)", [undefined]],
  ["(null)", [null]],
  ['("text")', ["text"]],
  ["(42)", [42]],
  ["({})", [{}]],
];

type Callable = (...args: unknown[]) => unknown;

/**
 * The exported callables: functions, classes (constructed with `new`) and their static methods, error classes too (a
 * custom model adapter builds an `LLMError`, a custom reader a `ReaderSkipError`).
 */
function exportedCallables(): { name: string; call: (args: unknown[]) => unknown }[] {
  const callables: { name: string; call: (args: unknown[]) => unknown }[] = [];
  const exported = ENTRIES.flatMap(([entry, module]) =>
    Object.entries(module).map(([name, value]) => [`${entry}: ${name}`, value] as const),
  );
  for (const [name, value] of exported) {
    if (typeof value !== "function") continue;
    const isClass = /^class\b/.test(Function.prototype.toString.call(value));
    callables.push({
      name,
      call: (args) =>
        isClass
          ? new (value as unknown as new (...x: unknown[]) => unknown)(...args)
          : (value as Callable)(...args),
    });
    for (const key of Object.getOwnPropertyNames(value)) {
      if (["length", "name", "prototype", "isInstance"].includes(key)) continue;
      const method = (value as unknown as Record<string, unknown>)[key];
      if (typeof method === "function") {
        callables.push({ name: `${name}.${key}`, call: (args) => (method as Callable).apply(value, args) });
      }
    }
  }
  return callables;
}

async function outcome(call: () => unknown): Promise<unknown> {
  try {
    let result = call();
    if (typeof (result as Promise<unknown> | undefined)?.then === "function") result = await result;
    // A call that worked and started something (a fake server) is closed again.
    const closable = result as { close?: unknown } | undefined;
    if (typeof closable?.close === "function") await (closable.close as () => unknown)();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("every export of every entry point, called from plain JavaScript with a wrong argument", () => {
  it("works or throws a RagsynthError naming what was expected, never a TypeError", async () => {
    const callables = exportedCallables();
    // The package's public surface, not a handful: a change that hid the exports would show here.
    expect(callables.length).toBeGreaterThan(90);
    const untyped: string[] = [];
    let refused = 0;
    for (const { name, call } of callables) {
      for (const [label, args] of ARGUMENTS) {
        const error = await outcome(() => call(args));
        if (error === undefined) continue;
        if (RagsynthError.isInstance(error)) {
          refused++;
          expect((error as Error).message, `${name}${label}`).toMatch(/\S/);
        } else {
          untyped.push(
            `${name}${label}: ${(error as Error)?.constructor?.name} ${(error as Error)?.message}`,
          );
        }
      }
    }
    expect(untyped).toEqual([]);
    // Most of these calls are wrong: the check above runs on real refusals, not on calls that all succeeded.
    expect(refused).toBeGreaterThan(350);
  });

  it("the public methods of the objects a user builds: the same, for every method not private in TypeScript", async () => {
    const documents = [
      new ragsynth.TextNode({ text: "Paris is the capital of France. It lies on the Seine." }),
      new ragsynth.TextNode({ text: "Berlin is the capital of Germany." }),
    ];
    const index = await ragsynth.VectorStoreIndex.fromDocuments(documents);
    const llm = new ragsynth.ExtractiveLLM();
    const objects: Record<string, object> = {
      index,
      retriever: index.asRetriever(),
      engine: index.asQueryEngine({ llm }),
      synthesizer: ragsynth.getResponseSynthesizer({ llm }),
      promptHelper: new ragsynth.PromptHelper(),
      chatPromptHelper: new ragsynth.ChatPromptHelper(),
      sentenceSplitter: new ragsynth.SentenceSplitter(),
      blockSplitter: new ragsynth.BlockSplitter(),
      tokenTextSplitter: new ragsynth.TokenTextSplitter(),
      embedder: new ragsynth.HashingEmbedder(),
      llm,
      similarityPostprocessor: new ragsynth.SimilarityPostprocessor({ similarityCutoff: 0.5 }),
      optimizer: new ragsynth.SentenceEmbeddingOptimizer({ percentileCutoff: 0.5 }),
      rerank: new ragsynth.LLMRerank({ llm }),
      lexicalIndex: new ragsynth.LexicalIndex(),
      prompt: new ragsynth.PromptTemplate({ template: "Q: {query_str}" }),
      chatPrompt: new ragsynth.ChatPromptTemplate({
        messages: [{ role: "user", content: "Q: {query_str}" }],
      }),
      node: documents[0] as object,
      citationEngine: new ragsynth.CitationQueryEngine({ retriever: index.asRetriever(), llm }),
      citationCleaner: new ragsynth.CitationTextCleaner({ sourceCount: 2 }),
    };
    // Declared private or protected in TypeScript: not called by users (the type checker refuses them).
    const notPublic = new Set([
      "engine.endQuery",
      "engine.retrieveAndPostprocess",
      "citationEngine.withCitations",
      "citationCleaner.resolve",
      "citationCleaner.step",
      "optimizer.select",
      "optimizer.split",
      "optimizer.splitter",
      "rerank.callPath",
      "rerank.planBatches",
      "rerank.createPromptHelper",
      "tokenTextSplitter.split",
      "tokenTextSplitter.merge",
      "tokenTextSplitter.splitWithSize",
    ]);
    const untyped: string[] = [];
    let methods = 0;
    for (const [name, object] of Object.entries(objects)) {
      const seen = new Set<string>();
      const members: [string, Callable][] = [];
      for (
        let proto = Object.getPrototypeOf(object);
        proto && proto !== Object.prototype;
        proto = Object.getPrototypeOf(proto)
      ) {
        for (const key of Object.getOwnPropertyNames(proto)) {
          const value = Object.getOwnPropertyDescriptor(proto, key)?.value;
          if (key !== "constructor" && !seen.has(key) && typeof value === "function")
            members.push([key, value]);
          seen.add(key);
        }
      }
      for (const key of Object.keys(object)) {
        const value = (object as Record<string, unknown>)[key];
        if (typeof value === "function") members.push([key, value as Callable]);
      }
      for (const [key, method] of members) {
        if (notPublic.has(`${name}.${key}`)) continue;
        methods++;
        for (const [label, args] of ARGUMENTS) {
          // A right call with a side effect: it would write an index into ./text.
          if (`${name}.${key}${label}` === 'index.persist("text")') continue;
          const error = await outcome(async () => {
            const result = method.apply(object, args) as unknown;
            if (
              typeof (result as AsyncIterable<unknown> | undefined)?.[Symbol.asyncIterator] === "function"
            ) {
              for await (const _ of result as AsyncIterable<unknown>);
            } else await result;
          });
          if (error !== undefined && !RagsynthError.isInstance(error)) {
            untyped.push(
              `${name}.${key}${label}: ${(error as Error)?.constructor?.name} ${(error as Error)?.message}`,
            );
          }
        }
      }
    }
    expect(methods).toBeGreaterThan(80);
    expect(untyped).toEqual([]);
  });

  it("says what arrived and the shape expected when options are not an object", async () => {
    const error = await outcome(() => new ragsynth.SentenceSplitter("512" as never));
    expect(error).toBeInstanceOf(ragsynth.InvalidArgumentError);
    expect((error as Error).message).toBe(
      'Expected `options` to be an object: { chunkSize?, chunkOverlap?, separator?, paragraphSeparator?, … }, got `"512"` (string).',
    );
    const retrieved = await outcome(() =>
      ragsynth.createFusionRetriever({ retrievers: [] as never }).retrieve("a question" as never),
    );
    // The fusion of no retrievers is refused first; a retriever called with a string says how to pass the query.
    expect((retrieved as Error).message).toMatch(/retrievers/);
    const index = await ragsynth.VectorStoreIndex.fromDocuments([
      new ragsynth.TextNode({ text: "Paris is in France." }),
    ]);
    const byString = await outcome(() => index.asRetriever().retrieve("Where is Paris?" as never));
    expect((byString as Error).message).toBe(
      'Expected `options` to be an object with the question as `query`, got `"Where is Paris?"` (string). Pass the question as retrieve({ query: "…" }).',
    );
    const engine = index.asQueryEngine({ llm: new ragsynth.ExtractiveLLM() });
    const queried = await outcome(() => engine.query("Where is Paris?" as never));
    expect((queried as Error).message).toMatch(/Pass the question as query\(\{ query: "…" \}\)/);
    const streamed = await outcome(() => engine.stream(undefined as never));
    expect((streamed as Error).message).toMatch(/Pass the question as stream\(\{ query: "…" \}\)/);
  });
});
