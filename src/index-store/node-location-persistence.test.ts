import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readDocuments } from "../reader/read-documents.js";
import { getNodeLocation } from "../schema/node-location.js";
import { MetadataMode } from "../schema/text-node.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { VectorStoreIndex } from "./vector-store-index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ragsynth-location-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const GUIDE = [
  "# Guide", // 1
  "",
  "Read this first.",
  "",
  "## Configuration", // 5
  "",
  "### Timeouts", // 7
  "",
  "The request timeout defaults to 30 seconds.", // 9
  "",
  "```sh",
  "ragsynth ask docs --timeout 60",
  "```", // 13
].join("\n");

async function readGuide() {
  const file = path.join(dir, "docs", "guide.md");
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, GUIDE);
  return (await readDocuments([path.join(dir, "docs")])).documents;
}

describe("node locations in a saved index", () => {
  it("are set for Markdown read from disk and survive persist and load, hidden from the LLM and embedder", async () => {
    const documents = await readGuide();
    const embedModel = new MockEmbedding({ dimensions: 8 });
    const index = await VectorStoreIndex.fromDocuments(documents, { embedModel });
    const [node] = index.nodes;
    const file = documents[0]?.metadata.file_path as string;
    expect(index.nodes).toHaveLength(1);
    expect(getNodeLocation(node as never)).toEqual({
      file,
      headingPath: ["Guide"],
      lines: { start: 1, end: 13 },
    });
    expect(node?.getContent(MetadataMode.LLM)).not.toContain("headingPath");
    expect(node?.getContent(MetadataMode.EMBED)).not.toContain("headingPath");

    await index.persist(path.join(dir, "index"));
    const loaded = await VectorStoreIndex.load(path.join(dir, "index"), { embedModel });
    expect(loaded.nodes.map((loadedNode) => getNodeLocation(loadedNode))).toEqual(
      index.nodes.map((indexNode) => getNodeLocation(indexNode)),
    );
  });

  it("are kept by a cached rebuild that reuses an unchanged file's stored nodes", async () => {
    const documents = await readGuide();
    const cacheDir = path.join(dir, "cache");
    const first = await VectorStoreIndex.fromDocumentsCached(documents, { cacheDir });
    const again = await VectorStoreIndex.fromDocumentsCached(
      await readDocuments([path.join(dir, "docs")]).then((read) => read.documents),
      {
        cacheDir,
      },
    );
    expect(again.buildStats.sources.unchanged).toHaveLength(1);
    expect(again.nodes.map((node) => getNodeLocation(node))).toEqual(
      first.nodes.map((node) => getNodeLocation(node)),
    );
    expect(getNodeLocation(again.nodes[0] as never)?.lines).toEqual({ start: 1, end: 13 });
  });
});
