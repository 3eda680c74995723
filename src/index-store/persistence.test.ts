import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Embedder } from "../embedding/types.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { ImageNode } from "../schema/image-node.js";
import { TextNode } from "../schema/text-node.js";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { IndexSaveError } from "./index-save-error.js";
import { INDEX_FILE_NAME, readIndexFile, readIndexHeader } from "./persistence.js";
import { VectorStoreIndex } from "./vector-store-index.js";

const VECTORS_FILE = /^ragsynth-vectors-[0-9a-f]{16}\.bin$/;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ragsynth-persist-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PARAGRAPHS = ["Cats purr when content.", "Dogs bark at strangers.", "Fish swim in schools."];
const document = (id: string, text: string) => new TextNode({ id, text, metadata: { file_path: id } });
const smallSplitter = new SentenceSplitter({ chunkSize: 12, chunkOverlap: 0 });
const rejectionOf = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error("expected a rejection"),
    (error: unknown) => error as Error,
  );

describe("VectorStoreIndex: persistence", () => {
  it("round-trips nodes, exact vectors and scores through persist and load", async () => {
    const embedModel = new MockEmbedding({ dimensions: 16 });
    const index = await VectorStoreIndex.fromDocuments(
      [document("a.md", PARAGRAPHS.join(" ")), document("b.md", "Birds sing at dawn.")],
      { embedModel, splitter: smallSplitter },
    );
    const file = await index.persist(dir);
    expect(file).toBe(path.join(dir, INDEX_FILE_NAME));
    expect((await readdir(dir)).sort()).toEqual([INDEX_FILE_NAME, expect.stringMatching(VECTORS_FILE)]);
    const loaded = await VectorStoreIndex.load(dir, { embedModel });
    expect(loaded.nodes.map((node) => node.toJSON())).toEqual(index.nodes.map((node) => node.toJSON()));
    expect(loaded.sources).toEqual(index.sources);
    const query = { query: "Dogs bark at strangers." };
    expect(await loaded.asRetriever({ similarityTopK: 4 }).retrieve(query)).toEqual(
      await index.asRetriever({ similarityTopK: 4 }).retrieve(query),
    );
  });

  it.runIf(existsSync("/proc/self/fd"))(
    "closes the index file after reading only its header, or all of it (no handle left for the GC)",
    async () => {
      const embedModel = new MockEmbedding({ dimensions: 16 });
      // Larger than the stream's read-ahead once compressed: the file is still being read when the header is in.
      let seed = 7;
      const word = () => {
        seed = (seed * 48271) % 2147483647;
        return seed.toString(36);
      };
      const text = Array.from({ length: 4000 }, () => `${Array.from({ length: 12 }, word).join(" ")}.`).join(
        " ",
      );
      const index = await VectorStoreIndex.fromDocuments([document("a.md", text)], { embedModel });
      await index.persist(dir);
      expect((await stat(path.join(dir, INDEX_FILE_NAME))).size).toBeGreaterThan(256 * 1024);
      const openFiles = () => readdirSync("/proc/self/fd").length;
      const before = openFiles();
      for (let read = 0; read < 20; read++) {
        expect((await readIndexHeader(dir))?.sources).toHaveLength(1);
        expect((await readIndexFile(dir))?.entries.length).toBeGreaterThan(0);
      }
      // Left open, each header read kept one descriptor until a garbage collection happened to close it.
      expect(openFiles()).toBeLessThanOrEqual(before + 2);
    },
  );

  it("keeps image documents as ImageNodes, with their path, across persist and load", async () => {
    const embedModel = new MockEmbedding({ dimensions: 16 });
    const image = new ImageNode({
      id: "chart.png",
      imagePath: "docs/chart.png",
      text: "chart",
      detail: "low",
    });
    const index = await VectorStoreIndex.fromDocuments([document("a.md", "Cats purr."), image], {
      embedModel,
      splitter: smallSplitter,
    });
    await index.persist(dir);
    const loaded = await VectorStoreIndex.load(dir, { embedModel });
    const restored = loaded.nodes.find((node) => node.id === "chart.png");
    expect(ImageNode.isInstance(restored)).toBe(true);
    expect(restored).toMatchObject({
      imagePath: "docs/chart.png",
      detail: "low",
      mediaType: "image/png",
      text: "chart",
    });
  });

  it("throws index_load with a fix for a missing, corrupt, foreign-version or other-embedding model index", async () => {
    const embedModel = new MockEmbedding();
    const loadError = (target: string, other: Embedder = embedModel) =>
      VectorStoreIndex.load(target, { embedModel: other }).then(
        () => new Error("expected load to fail"),
        (error: unknown) => error as Error,
      );

    let error = await loadError(dir);
    expect(RagsynthError.isInstance(error, "index_load")).toBe(true);
    expect(error.message).toMatch(/^No index in .*\. Build one with VectorStoreIndex\.fromDocuments/);

    const index = await VectorStoreIndex.fromNodes([new TextNode({ text: "a" })], { embedModel });
    const file = await index.persist(dir);
    const valid = gunzipSync(await readFile(file)).toString("utf8");

    error = await loadError(dir, new MockEmbedding({ id: "other" }));
    expect(error.message).toMatch(/built with the embedding model "mock-embedding", but got "other"/);

    await writeFile(file, gzipSync(valid.slice(0, valid.length / 2)));
    error = await loadError(dir);
    expect(RagsynthError.isInstance(error, "index_load")).toBe(true);
    expect(error.message).toMatch(/is not valid JSON .* Delete it to rebuild/);
    expect(error.cause).toBeInstanceOf(SyntaxError);

    const compressed = gzipSync(valid);
    await writeFile(file, compressed.subarray(0, compressed.length - 12));
    error = await loadError(dir);
    expect(RagsynthError.isInstance(error, "index_load")).toBe(true);
    expect(error.message).toMatch(/is not a complete gzip file/);

    await writeFile(file, gzipSync(valid.replace('"version":4', '"version":99')));
    error = await loadError(dir);
    expect(error.message).toMatch(/has format version 99, but this ragsynth reads version 4/);
  });

  it("leaves the previous file intact and no temporary file behind when a write fails", async () => {
    const embedModel = new MockEmbedding();
    const first = await VectorStoreIndex.fromNodes([new TextNode({ id: "one", text: "one" })], {
      embedModel,
    });
    await first.persist(dir);
    const second = await VectorStoreIndex.fromNodes([new TextNode({ id: "two", text: "two" })], {
      embedModel,
    });
    const error = await rejectionOf(second.persist(dir, { signal: AbortSignal.abort() }));
    expect(error.name).toBe("AbortError");
    expect((await readdir(dir)).sort()).toEqual([INDEX_FILE_NAME, expect.stringMatching(VECTORS_FILE)]);
    expect((await VectorStoreIndex.load(dir, { embedModel })).nodes.map((node) => node.id)).toEqual(["one"]);
  });

  it("throws index_save with the path and a fix when a part of the folder is a file", async () => {
    const embedModel = new MockEmbedding();
    const index = await VectorStoreIndex.fromNodes([new TextNode({ id: "one", text: "one" })], {
      embedModel,
    });
    const blocker = path.join(dir, "not-a-folder");
    await writeFile(blocker, "a file where a folder should be");
    const target = path.join(blocker, "index");

    const error = await rejectionOf(index.persist(target));
    expect(RagsynthError.isInstance(error, "index_save")).toBe(true);
    expect(error).toBeInstanceOf(IndexSaveError);
    const saveError = error as IndexSaveError;
    expect(saveError.path).toBe(path.join(target, INDEX_FILE_NAME));
    expect(["ENOTDIR", "EEXIST"]).toContain(saveError.systemCode);
    expect(saveError.message).toContain(
      `Could not save the index to ${saveError.path} (${saveError.systemCode}).`,
    );
    expect(saveError.message).toMatch(/is a file, not a folder: persist to another folder/);
    expect((saveError.cause as NodeJS.ErrnoException).code).toBe(saveError.systemCode);
    expect(await readFile(blocker, "utf8")).toBe("a file where a folder should be");
  });

  it("lets fromDocumentsCached report index_save, and load honour an aborted signal", async () => {
    const embedModel = new MockEmbedding();
    const blocker = path.join(dir, "file");
    await writeFile(blocker, "x");
    const error = await rejectionOf(
      VectorStoreIndex.fromDocumentsCached([document("a.md", "Alpha.")], { embedModel, cacheDir: blocker }),
    );
    expect(RagsynthError.isInstance(error, "index_save")).toBe(true);

    await (await VectorStoreIndex.fromNodes([new TextNode({ text: "a" })], { embedModel })).persist(dir);
    const aborted = await rejectionOf(
      VectorStoreIndex.load(dir, { embedModel, signal: AbortSignal.abort() }),
    );
    expect(aborted.name).toBe("AbortError");
    expect(RagsynthError.isInstance(aborted)).toBe(false);
  });

  it('persist: "background" returns the built index and writes it meanwhile; `saved` says when and where', async () => {
    const embedModel = new MockEmbedding({ dimensions: 16 });
    const documents = [document("a.md", PARAGRAPHS.join(" ")), document("b.md", "Birds sing at dawn.")];
    const options = { embedModel, cacheDir: dir, splitter: smallSplitter };
    const built = await VectorStoreIndex.fromDocumentsCached(documents, {
      ...options,
      persist: "background",
    });
    // Usable at once, written once `saved` settles.
    expect(await built.asRetriever({ similarityTopK: 1 }).retrieve({ query: "Birds" })).toHaveLength(1);
    expect(await built.saved).toBe(path.join(dir, INDEX_FILE_NAME));
    const loaded = await VectorStoreIndex.load(dir, { embedModel });
    expect(loaded.nodes.map((node) => node.toJSON())).toEqual(built.nodes.map((node) => node.toJSON()));
    // Nothing changed: nothing written, `saved` is undefined; by default the write is done on return.
    const again = await VectorStoreIndex.fromDocumentsCached(documents, {
      ...options,
      persist: "background",
    });
    expect(await again.saved).toBeUndefined();
    const changed = [document("a.md", "Cats nap."), documents[1] as TextNode];
    const awaited = await VectorStoreIndex.fromDocumentsCached(changed, options);
    expect((await VectorStoreIndex.load(dir, { embedModel })).nodes.map((node) => node.text)).toEqual(
      awaited.nodes.map((node) => node.text),
    );
    expect(await awaited.saved).toBe(path.join(dir, INDEX_FILE_NAME));
    expect(await (await VectorStoreIndex.fromNodes([], { embedModel })).saved).toBeUndefined();
  });

  it('persist: "background" reports a failed write through `saved` only, and refuses another value', async () => {
    const embedModel = new MockEmbedding();
    const blocker = path.join(dir, "file");
    await writeFile(blocker, "x");
    const built = await VectorStoreIndex.fromDocumentsCached([document("a.md", "Alpha.")], {
      embedModel,
      cacheDir: blocker,
      persist: "background",
    });
    expect(built.nodes.map((node) => node.text)).toEqual(["Alpha."]);
    const error = await rejectionOf(built.saved);
    expect(RagsynthError.isInstance(error, "index_save")).toBe(true);

    const refused = await rejectionOf(
      VectorStoreIndex.fromDocumentsCached([document("a.md", "Alpha.")], {
        embedModel,
        cacheDir: dir,
        persist: "later" as "background",
      }),
    );
    expect(RagsynthError.isInstance(refused, "invalid_argument")).toBe(true);
    expect(refused.message).toMatch(/persist.*"await".*"background"/s);
    expect(await readdir(dir)).toEqual(["file"]);
  });
});
