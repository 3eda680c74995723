import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { readDocuments } from "../reader/read-documents.js";
import { TextNode } from "../schema/text-node.js";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { EmbeddingCache } from "./embedding-cache.js";
import { INDEX_FILE_NAME } from "./store-index.js";
import { VectorStoreIndex } from "./vector-store-index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ragsynth-index-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PARAGRAPHS = ["Cats purr when content.", "Dogs bark at strangers.", "Fish swim in schools."];
const document = (id: string, text: string) => new TextNode({ id, text, metadata: { file_path: id } });
const smallSplitter = new SentenceSplitter({ chunkSize: 12, chunkOverlap: 0 });
/** Texts sent to getTextEmbeddings, over all calls. */
const embeddedTexts = (embedModel: MockEmbedding) =>
  embedModel.calls.filter((call) => call.method === "getTextEmbeddings").flatMap((call) => call.texts);

describe("VectorStoreIndex: build and retrieve", () => {
  it("retrieves the top-k nodes by cosine similarity, best first, in dense mode", async () => {
    const embedModel = new MockEmbedding({
      embeddings: { a: [1, 0, 0], b: [0.8, 0.6, 0], c: [0, 0, 1], "query a": [1, 0, 0] },
    });
    const nodes = ["a", "b", "c"].map((text) => new TextNode({ id: text, text }));
    const index = await VectorStoreIndex.fromNodes(nodes, { embedModel });
    const dense = index.asRetriever({ similarityTopK: 2, retrievalMode: "dense" });
    const results = await dense.retrieve({ query: "query a" });
    expect(results.map(({ node }) => node.id)).toEqual(["a", "b"]);
    // Vectors are kept as float32, so scores are as exact as float32 values allow.
    expect(results[0]?.score).toBe(1);
    expect(results[1]?.score).toBeCloseTo(0.8, 6);
    expect(await index.asRetriever({ retrievalMode: "dense" }).retrieve({ query: "query a" })).toHaveLength(
      2,
    );
    expect(embedModel.calls.filter((call) => call.method === "getQueryEmbedding")).toHaveLength(2);
  });

  it("fuses BM25 and the embeddings by reciprocal rank by default when a real embedder is used", async () => {
    // Dense ranks "stripes" first; BM25 ranks the only node naming the flag first and ignores the rest.
    const embedModel = new MockEmbedding({
      embeddings: {
        "--zebra flag": [1, 0],
        "stripes everywhere": [0.9, 0.1],
        other: [0, 1],
        "--zebra": [1, 0],
      },
    });
    const nodes = ["--zebra flag", "stripes everywhere", "other"].map(
      (text) => new TextNode({ id: text, text }),
    );
    const index = await VectorStoreIndex.fromNodes(nodes, { embedModel });
    const results = await index.asRetriever({ similarityTopK: 3 }).retrieve({ query: "--zebra" });
    expect(results.map(({ node }) => node.id)).toEqual(["--zebra flag", "stripes everywhere", "other"]);
    expect(results[0]?.score).toBeCloseTo(2 / 60, 12);
    const lexical = await index
      .asRetriever({ retrievalMode: "lexical", similarityTopK: 3 })
      .retrieve({ query: "--zebra" });
    expect(lexical.map(({ node }) => node.id)).toEqual(["--zebra flag"]);
    expect(() => index.asRetriever({ retrievalMode: "bm25" as never })).toThrow(
      /Expected `retrievalMode` to be one of "lexical", "dense", "hybrid"/,
    );
  });

  it("is lexical by default with the offline HashingEmbedder, and sends no chunk without a query term", async () => {
    const texts = [
      "Zebras have striped coats.",
      "Merge the release branch for v2.9.1.",
      "Nothing in common.",
    ];
    const nodes = texts.map((text, id) => new TextNode({ id: String(id), text }));
    const index = await VectorStoreIndex.fromNodes(nodes, { embedModel: new HashingEmbedder() });
    const results = await index.asRetriever({ similarityTopK: 3 }).retrieve({ query: "zebras" });
    expect(results.map(({ node }) => node.id)).toEqual(["0"]);
    const dense = await index
      .asRetriever({ similarityTopK: 3, retrievalMode: "dense" })
      .retrieve({ query: "zebras" });
    expect(dense).toHaveLength(3);
  });

  it("splits a plain document with SentenceSplitter (1024/200 by default, through BlockSplitter) and embeds its embed content", async () => {
    const embedModel = new MockEmbedding();
    const index = await VectorStoreIndex.fromDocuments([document("a.md", PARAGRAPHS.join(" "))], {
      embedModel,
    });
    expect(index.nodes.map((node) => node.text)).toEqual([PARAGRAPHS.join(" ")]);
    expect(embeddedTexts(embedModel)).toEqual([`file_path: a.md\n\n${PARAGRAPHS.join(" ")}`]);
    expect(index.sources).toEqual([
      { id: "a.md", contentHash: expect.stringMatching(/^[0-9a-f]{64}$/), nodeIds: ["a.md#0"] },
    ]);
  });

  it("embeds identical content once and passes arrays of embedBatchSize texts", async () => {
    const embedModel = new MockEmbedding();
    const nodes = ["x", "y", "x", "z", "w"].map((text, id) => new TextNode({ id: String(id), text }));
    const progress: unknown[] = [];
    const index = await VectorStoreIndex.fromNodes(nodes, {
      embedModel,
      embedBatchSize: 2,
      onProgress: (event) => progress.push(event),
    });
    expect(embedModel.calls.map((call) => call.texts)).toEqual([
      ["x", "y"],
      ["z", "w"],
    ]);
    expect(progress).toEqual([
      { embedded: 0, total: 4 },
      { embedded: 2, total: 4 },
      { embedded: 4, total: 4 },
    ]);
    expect(index.buildStats).toMatchObject({ chunks: 5, embedded: 4, reused: 0 });
  });

  it("reuses a shared cache, keyed by embedModel id", async () => {
    const cache = new EmbeddingCache();
    const documents = [document("a.md", PARAGRAPHS.join(" "))];
    const first = new MockEmbedding();
    await VectorStoreIndex.fromDocuments(documents, { embedModel: first, cache, splitter: smallSplitter });
    const again = new MockEmbedding();
    const index = await VectorStoreIndex.fromDocuments(documents, {
      embedModel: again,
      cache,
      splitter: smallSplitter,
    });
    expect(again.batchCount).toBe(0);
    expect(index.buildStats).toMatchObject({ embedded: 0, reused: 3 });
    const other = new MockEmbedding({ id: "other-model" });
    await VectorStoreIndex.fromDocuments(documents, { embedModel: other, cache, splitter: smallSplitter });
    expect(embeddedTexts(other)).toHaveLength(3);
  });

  it("rejects an embedModel that returns the wrong number of vectors", async () => {
    const broken: Embedder = {
      id: "broken",
      getTextEmbeddings: async () => [[1, 0]],
      getQueryEmbedding: async () => [1, 0],
    };
    const nodes = [new TextNode({ text: "a" }), new TextNode({ text: "b" })];
    await expect(VectorStoreIndex.fromNodes(nodes, { embedModel: broken })).rejects.toThrow(
      /Expected `embedModel` to return one embedding per text from getTextEmbeddings \(2 texts\), got 1/,
    );
  });

  it("rejects a similarityTopK below 1", async () => {
    const index = await VectorStoreIndex.fromNodes([], { embedModel: new MockEmbedding() });
    expect(() => index.asRetriever({ similarityTopK: 0 })).toThrow(InvalidArgumentError);
    expect(await index.asRetriever().retrieve({ query: "anything" })).toEqual([]);
  });
});

describe("VectorStoreIndex: abort", () => {
  it("stops between embedding batches when the signal aborts", async () => {
    const controller = new AbortController();
    const embedModel = new MockEmbedding();
    const original = embedModel.getTextEmbeddings.bind(embedModel);
    embedModel.getTextEmbeddings = async (texts, options) => {
      const vectors = await original(texts, options);
      controller.abort(new Error("user stopped"));
      return vectors;
    };
    const nodes = ["a", "b", "c", "d"].map((text) => new TextNode({ text }));
    await expect(
      VectorStoreIndex.fromNodes(nodes, { embedModel, embedBatchSize: 2, signal: controller.signal }),
    ).rejects.toThrow("user stopped");
    expect(embedModel.batchCount).toBe(1);
  });

  it("does not embed at all with an aborted signal, and aborts retrieval", async () => {
    const embedModel = new MockEmbedding();
    const signal = AbortSignal.abort(new Error("already"));
    await expect(
      VectorStoreIndex.fromDocuments([document("a.md", "text")], { embedModel, signal }),
    ).rejects.toThrow("already");
    expect(embedModel.calls).toEqual([]);
    const index = await VectorStoreIndex.fromNodes([new TextNode({ text: "a" })], { embedModel });
    await expect(index.asRetriever().retrieve({ query: "a", signal })).rejects.toThrow("already");
  });
});

describe("VectorStoreIndex.fromDocumentsCached", () => {
  const build = (documents: TextNode[], embedModel: Embedder, rebuild = false) =>
    VectorStoreIndex.fromDocumentsCached(documents, {
      embedModel,
      cacheDir: dir,
      splitter: smallSplitter,
      rebuild,
    });

  it("embeds everything once, then nothing while the documents are unchanged", async () => {
    const documents = [document("a.md", PARAGRAPHS.join(" ")), document("b.md", "Birds sing at dawn.")];
    const first = new MockEmbedding();
    const built = await build(documents, first);
    expect(embeddedTexts(first)).toHaveLength(4);
    expect(built.buildStats.sources.added).toEqual(["a.md", "b.md"]);

    const second = new MockEmbedding();
    const reused = await build(documents, second);
    expect(second.calls).toEqual([]);
    expect(reused.buildStats).toMatchObject({ chunks: 4, embedded: 0, reused: 4 });
    expect(reused.buildStats.sources.unchanged).toEqual(["a.md", "b.md"]);
  });

  it("splits unchanged files again when the splitter's settings changed, keeping vectors of unchanged chunks", async () => {
    const documents = [document("a.md", PARAGRAPHS.join(" ")), document("b.md", "Birds sing at dawn.")];
    const small = await build(documents, new MockEmbedding());
    const embedModel = new MockEmbedding();
    const larger = await VectorStoreIndex.fromDocumentsCached(documents, {
      embedModel,
      cacheDir: dir,
      splitter: new SentenceSplitter({ chunkSize: 1024, chunkOverlap: 0 }),
    });
    // Not "unchanged": a file's chunks follow the splitter, and every file was split again with the new one.
    expect(larger.buildStats.sources.unchanged).toEqual([]);
    expect(larger.buildStats.chunks).toBeLessThan(small.buildStats.chunks);
    // b.md's one chunk is the same text: its vector is reused, only a.md's new chunk is embedded.
    expect(embeddedTexts(embedModel)).toHaveLength(1);
    const back = await build(documents, new MockEmbedding());
    expect(back.buildStats.chunks).toBe(small.buildStats.chunks);
    expect(back.buildStats.sources.unchanged).toEqual([]);
  });

  it("re-embeds only the changed chunks of a changed file, and reports added and removed files", async () => {
    await build(
      [document("a.md", PARAGRAPHS.join(" ")), document("b.md", "Birds sing at dawn.")],
      new MockEmbedding(),
    );
    const changed = [
      document("a.md", `${PARAGRAPHS[0]} Dogs bark at night. ${PARAGRAPHS[2]}`),
      document("c.md", "New."),
    ];
    const embedModel = new MockEmbedding();
    const index = await build(changed, embedModel);
    expect(embeddedTexts(embedModel)).toEqual([
      "file_path: a.md\n\nDogs bark at night.",
      "file_path: c.md\n\nNew.",
    ]);
    expect(index.buildStats.sources).toEqual({
      added: ["c.md"],
      changed: ["a.md"],
      unchanged: [],
      removed: ["b.md"],
    });
    expect((await VectorStoreIndex.load(dir, { embedModel })).nodes.map((node) => node.id)).toEqual(
      index.nodes.map((node) => node.id),
    );
  });

  it("re-embeds everything for a different embedModel, or with rebuild", async () => {
    const documents = [document("a.md", PARAGRAPHS.join(" "))];
    await build(documents, new MockEmbedding());
    const other = new MockEmbedding({ id: "other-model" });
    const index = await build(documents, other);
    expect(embeddedTexts(other)).toHaveLength(3);
    expect(index.buildStats.previousEmbedModelId).toBe("mock-embedding");
    const same = new MockEmbedding({ id: "other-model" });
    await build(documents, same, true);
    expect(embeddedTexts(same)).toHaveLength(3);
  });

  it("refuses embeddings that are not finite before writing them into the index", async () => {
    const broken: Embedder = {
      id: "broken",
      getTextEmbeddings: async (texts) => texts.map(() => [1, Number.NaN]),
      getQueryEmbedding: async () => [1, 0],
    };
    const error = await VectorStoreIndex.fromDocumentsCached(
      [new TextNode({ id: "a.md", text: "Some text." })],
      { cacheDir: dir, embedModel: broken },
    ).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/not a finite number/);
    expect(await VectorStoreIndex.storedSources(dir, { embedModel: broken })).toEqual([]);
  });

  it("refuses a cacheDir that reads as a URL of another kind instead of making a folder of that name", async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      for (const cacheDir of ["pg://u:hunter22@host/db", "postgresql:/host/db", "mysql://host/db"]) {
        const error = await VectorStoreIndex.fromDocumentsCached([document("a.md", "Some text.")], {
          cacheDir,
          embedModel: new MockEmbedding(),
        }).catch((caught: unknown) => caught);
        expect(InvalidArgumentError.isInstance(error), cacheDir).toBe(true);
        expect((error as InvalidArgumentError).parameter).toBe("cacheDir");
        expect((error as Error).message).toMatch(
          /be a folder \(or a PostgreSQL URL\), not a URL of another kind/,
        );
        expect((error as Error).message).not.toContain("hunter22");
      }
      const { readdir } = await import("node:fs/promises");
      expect(await readdir(dir)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it("refuses a corrupt stored index instead of silently replacing it", async () => {
    await writeFile(path.join(dir, INDEX_FILE_NAME), "{ not json");
    const error = await build([document("a.md", "text")], new MockEmbedding()).catch(
      (caught: unknown) => caught,
    );
    expect(RagsynthError.isInstance(error, "index_load")).toBe(true);
    await expect(build([document("a.md", "text")], new MockEmbedding(), true)).resolves.toBeInstanceOf(
      VectorStoreIndex,
    );
  });

  it("works with readDocuments: touching a file changes nothing, editing one re-embeds only its new chunk", async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const docs = "docs"; // relative, so file_path (and the metadata budget) stays short
      await mkdir(docs);
      await writeFile(path.join(docs, "a.md"), PARAGRAPHS.join("\n\n"));
      await writeFile(path.join(docs, "b.md"), "Birds sing at dawn.");
      const cacheDir = path.join(dir, ".ragsynth");
      const sentencePerChunk = new SentenceSplitter({ chunkSize: 14, chunkOverlap: 0 });
      const run = async (embedModel: MockEmbedding) => {
        const { documents } = await readDocuments([docs]);
        return VectorStoreIndex.fromDocumentsCached(documents, {
          embedModel,
          cacheDir,
          splitter: sentencePerChunk,
        });
      };
      const first = await run(new MockEmbedding());
      expect(first.buildStats).toMatchObject({ chunks: 4, embedded: 4, reused: 0 });
      expect(first.sources[1]).toMatchObject({ size: 19, lastModifiedAt: expect.any(String) });

      await utimes(path.join(docs, "b.md"), new Date(2001, 1, 1), new Date(2001, 1, 1));
      const touched = new MockEmbedding();
      expect((await run(touched)).buildStats).toMatchObject({ embedded: 0, reused: 4 });
      expect(touched.calls).toEqual([]);

      await writeFile(path.join(docs, "b.md"), "Birds sing at dawn.\n\nOwls hoot at night.");
      const edited = new MockEmbedding();
      const index = await run(edited);
      expect(embeddedTexts(edited)).toEqual([`file_path: docs/b.md\n\nOwls hoot at night.`]);
      expect(index.buildStats.sources.changed).toEqual(["docs/b.md"]);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("embedModel", () => {
  it("is a typed error when not a model, and names the 0.1 option `embedder` to a plain-JS caller still passing it", async () => {
    const documents = [new TextNode({ text: "a" })];
    const legacy = { embedder: new MockEmbedding() } as unknown as { embedModel: Embedder };
    const renamed = await VectorStoreIndex.fromDocuments(documents, legacy).catch((error: unknown) => error);
    expect(InvalidArgumentError.isInstance(renamed)).toBe(true);
    expect((renamed as InvalidArgumentError).parameter).toBe("embedModel");
    expect((renamed as Error).message).toContain("`embedder` was renamed to `embedModel`");
    const notAModel = VectorStoreIndex.fromNodes(documents, { embedModel: "openai" as unknown as Embedder });
    await expect(notAModel).rejects.toThrow("Expected `embedModel` to be an embedding model");
    // Left out entirely, it is the offline HashingEmbedder.
    expect((await VectorStoreIndex.fromNodes(documents, {})).embedModel.id).toMatch(/hashing/i);
    await expect(VectorStoreIndex.load("nowhere", legacy)).rejects.toThrow(InvalidArgumentError);
  });
});
