import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type { Embedder } from "../embedding/types.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { LEXICAL_ANALYZER } from "../lexical/lexical-tokens.js";
import { TextNode } from "../schema/text-node.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { INDEX_FILE_NAME } from "./persistence.js";
import { VectorStoreIndex } from "./vector-store-index.js";
import { encodeVectorsFile } from "./vectors-file.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ragsynth-files-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rejectionOf = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error("expected a rejection"),
    (error: unknown) => error as Error,
  );
const file = (id: string, text: string, modified = "2026-01-01T00:00:00.000Z") =>
  new TextNode({
    id,
    text,
    metadata: { file_path: id, file_size: text.length, last_modified_at: modified },
    excludedEmbedMetadataKeys: ["file_size", "last_modified_at"],
  });
const vectorsFileIn = async (folder: string) =>
  path.join(folder, (await readdir(folder)).find((name) => name.endsWith(".bin")) as string);

describe("index files: float32 vectors beside the JSON", () => {
  it("rejects a vectors file holding NaN with a typed index_load error, even with a valid checksum", async () => {
    const embedModel = new MockEmbedding({ dimensions: 4 });
    const index = await VectorStoreIndex.fromNodes([new TextNode({ id: "a", text: "alpha" })], {
      embedModel,
    });
    await index.persist(dir);
    const vectors = await vectorsFileIn(dir);
    const poisoned = { count: 1, dimensions: 4, data: Float32Array.from([0.5, Number.NaN, 0, 0]) };
    await writeFile(vectors, encodeVectorsFile(poisoned));
    // The JSON names the checksum of the vectors it was saved with: make it name the poisoned ones.
    const json = gunzipSync(await readFile(path.join(dir, INDEX_FILE_NAME))).toString("utf8");
    const checksum = (await readFile(vectors)).subarray(32, 64).toString("hex");
    await writeFile(
      path.join(dir, INDEX_FILE_NAME),
      gzipSync(json.replace(/"checksum":"[0-9a-f]+"/, `"checksum":"${checksum}"`)),
    );
    const error = await rejectionOf(VectorStoreIndex.load(dir, { embedModel }));
    expect(RagsynthError.isInstance(error, "index_load")).toBe(true);
    expect(error.message).toMatch(/not a finite number \(NaN\) in vector 0\. Delete the index folder/);
  });

  it("rejects a damaged or cut vectors file, and an embedding model that returns NaN", async () => {
    const embedModel = new MockEmbedding({ dimensions: 4 });
    await (
      await VectorStoreIndex.fromNodes([new TextNode({ id: "a", text: "alpha" })], { embedModel })
    ).persist(dir);
    const vectors = await vectorsFileIn(dir);
    const bytes = await readFile(vectors);
    bytes.writeUInt8((bytes.at(-1) as number) ^ 0xff, bytes.length - 1);
    await writeFile(vectors, bytes);
    let error = await rejectionOf(VectorStoreIndex.load(dir, { embedModel }));
    expect(error.message).toMatch(/does not match its checksum/);
    await writeFile(vectors, bytes.subarray(0, bytes.length - 4));
    error = await rejectionOf(VectorStoreIndex.load(dir, { embedModel }));
    expect(error.message).toMatch(/cut short/);

    const broken: Embedder = {
      id: "nan",
      getTextEmbeddings: async (texts) => texts.map(() => [Number.NaN, 1]),
      getQueryEmbedding: async () => [1, 0],
    };
    error = await rejectionOf(
      VectorStoreIndex.fromNodes([new TextNode({ text: "x" })], { embedModel: broken }),
    );
    expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
    expect(error.message).toMatch(/not a finite number/);
  });

  it("removes temporary files of a killed save and vectors files no index names", async () => {
    const embedModel = new MockEmbedding({ dimensions: 4 });
    await (
      await VectorStoreIndex.fromNodes([new TextNode({ id: "a", text: "alpha" })], { embedModel })
    ).persist(dir);
    const deadPid = 2 ** 22 + 17; // above Linux's pid_max default: no such process
    const stale = [
      `.${INDEX_FILE_NAME}.${deadPid}.0b9d6f0e-1111-4222-8333-444455556666.tmp`,
      "ragsynth-vectors-00000000deadbeef.bin",
    ];
    for (const name of stale) await writeFile(path.join(dir, name), "left by a killed save");
    const live = `.${INDEX_FILE_NAME}.${process.pid}.0b9d6f0e-1111-4222-8333-444455556666.tmp`;
    await writeFile(path.join(dir, live), "a save in progress in a live process");
    await (
      await VectorStoreIndex.fromNodes([new TextNode({ id: "b", text: "beta" })], { embedModel })
    ).persist(dir);
    const names = await readdir(dir);
    for (const name of stale) expect(names).not.toContain(name);
    expect(names).toContain(live);
    expect(names.filter((name) => name.endsWith(".bin"))).toHaveLength(1);
  });

  it("writes nothing when no file changed, and re-splits nothing it can keep", async () => {
    const embedModel = new MockEmbedding({ dimensions: 4 });
    const documents = [file("a.md", "Alpha is first."), file("b.md", "Beta is second.")];
    await VectorStoreIndex.fromDocumentsCached(documents, { embedModel, cacheDir: dir });
    const before = await stat(path.join(dir, INDEX_FILE_NAME));
    const again = await VectorStoreIndex.fromDocumentsCached(documents, { embedModel, cacheDir: dir });
    expect(again.buildStats.sources.unchanged).toEqual(["a.md", "b.md"]);
    expect((await stat(path.join(dir, INDEX_FILE_NAME))).mtimeMs).toBe(before.mtimeMs);
    expect((await stat(path.join(dir, INDEX_FILE_NAME))).ino).toBe(before.ino);

    const touched = [file("a.md", "Alpha is first.", "2026-02-02T00:00:00.000Z"), documents[1] as TextNode];
    const third = await VectorStoreIndex.fromDocumentsCached(touched, { embedModel, cacheDir: dir });
    expect(third.buildStats.embedded).toBe(0);
    expect((await stat(path.join(dir, INDEX_FILE_NAME))).ino).not.toBe(before.ino);
  });

  it("tells an up-to-date index from the file's first line alone, reading no node and no BM25 posting", async () => {
    const embedModel = new HashingEmbedder();
    const documents = [file("a.md", "Alpha is first."), file("b.md", "Beta is second.")];
    await VectorStoreIndex.fromDocumentsCached(documents, { embedModel, cacheDir: dir });
    const indexFile = path.join(dir, INDEX_FILE_NAME);
    const [header] = gunzipSync(await readFile(indexFile))
      .toString("utf8")
      .split("\n");
    // Everything after the header is damaged: reading any node or posting would fail.
    await writeFile(indexFile, gzipSync(`${header}\n{"damaged`));
    const stats = await VectorStoreIndex.cachedStats(documents, { cacheDir: dir, embedModel });
    expect(stats).toMatchObject({ chunks: 2, embedded: 0, sources: { unchanged: ["a.md", "b.md"] } });
    const error = await rejectionOf(VectorStoreIndex.load(dir, { embedModel }));
    expect(RagsynthError.isInstance(error, "index_load")).toBe(true);

    const touched = [file("a.md", "Alpha is first.", "2026-02-02T00:00:00.000Z"), documents[1] as TextNode];
    expect(await VectorStoreIndex.cachedStats(touched, { cacheDir: dir, embedModel })).toBeUndefined();
    expect(
      await VectorStoreIndex.cachedStats(documents.slice(1), { cacheDir: dir, embedModel }),
    ).toBeUndefined();
    const other = new MockEmbedding({ dimensions: 4 });
    expect(
      await VectorStoreIndex.cachedStats(documents, { cacheDir: dir, embedModel: other }),
    ).toBeUndefined();
    expect(
      await VectorStoreIndex.cachedStats(documents, { cacheDir: path.join(dir, "none"), embedModel }),
    ).toBeUndefined();
  });

  it("keeps no vectors for the hashing embedder, and embeds on the first dense search instead", async () => {
    const embedModel = new HashingEmbedder();
    const documents = [file("zebra.md", "Zebras have stripes."), file("git.md", "Release notes for v2.9.1.")];
    const index = await VectorStoreIndex.fromDocumentsCached(documents, { embedModel, cacheDir: dir });
    expect(index.buildStats.embedded).toBe(0);
    expect((await readdir(dir)).filter((name) => name.endsWith(".bin"))).toEqual([]);
    const loaded = await VectorStoreIndex.load(dir, { embedModel });
    const [best] = await loaded
      .asRetriever({ similarityTopK: 1, retrievalMode: "dense" } as never)
      .retrieve({ query: "zebras" });
    expect(best?.node.metadata.file_path).toBe("zebra.md");
  });

  it("keeps the BM25 index in the file and updates it for changed files only", async () => {
    const embedModel = new HashingEmbedder();
    const zebra = file("zebra.md", "Zebras have stripes.");
    await VectorStoreIndex.fromDocumentsCached([zebra, file("git.md", "Release notes for v2.9.1.")], {
      embedModel,
      cacheDir: dir,
    });
    const lines = gunzipSync(await readFile(path.join(dir, INDEX_FILE_NAME)))
      .toString("utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    // A header, one line per node, the BM25 header, one line per term.
    expect(lines[0]).toMatchObject({ version: 4, nodes: 2, lexical: LEXICAL_ANALYZER });
    expect(lines[3]).toMatchObject({ format: "ragsynth-bm25-lines", ids: expect.any(Array) });
    expect(lines.slice(4)).toContainEqual(["stripe", [0, 1]]);
    const loaded = await VectorStoreIndex.load(dir, { embedModel });
    expect(loaded.lexicalIndex.search("zebras").map((hit) => hit.id)).toEqual([loaded.nodes[0]?.id]);

    const edited = file("git.md", "Branch protection rules.", "2026-03-03T00:00:00.000Z");
    const updated = await VectorStoreIndex.fromDocumentsCached([zebra, edited], {
      embedModel,
      cacheDir: dir,
    });
    expect(updated.lexicalIndex.size).toBe(2);
    expect(updated.lexicalIndex.search("release")).toEqual([]);
    expect(updated.lexicalIndex.search("branch")).toHaveLength(1);
    const reloaded = await VectorStoreIndex.load(dir, { embedModel });
    expect(reloaded.lexicalIndex.search("branch").map((hit) => hit.id)).toEqual(
      updated.lexicalIndex.search("branch").map((hit) => hit.id),
    );
  });
});
