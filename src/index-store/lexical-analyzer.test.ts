import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LEXICAL_ANALYZER } from "../lexical/lexical-tokens.js";
import { TextNode } from "../schema/text-node.js";
import { INDEX_FILE_NAME } from "./persistence.js";
import { VectorStoreIndex } from "./vector-store-index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ragsynth-analyzer-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const documents = [
  new TextNode({
    id: "a.md",
    text: "# Retries\n\nThe client waits, then sends the request again.",
    metadata: {},
  }),
  new TextNode({
    id: "b.md",
    text: "Retries are logged. The client waits, then sends the request.",
    metadata: {},
  }),
];

async function header(): Promise<Record<string, unknown>> {
  const text = gunzipSync(await readFile(path.join(dir, INDEX_FILE_NAME))).toString("utf8");
  return JSON.parse(text.slice(0, text.indexOf("\n")));
}

describe("VectorStoreIndex: the stored BM25 index's analyzer version", () => {
  it("records the analyzer, and rebuilds a BM25 index an older analyzer wrote instead of reading it", async () => {
    const first = await VectorStoreIndex.fromDocumentsCached(documents, { cacheDir: dir });
    expect((await header()).lexical).toBe(LEXICAL_ANALYZER);
    const ranked = await first.asRetriever({ similarityTopK: 2 }).retrieve({ query: "retries" });
    expect(ranked).toHaveLength(2);

    // An index written before analyzer versions (`"lexical": true`), with postings that no longer match.
    const file = path.join(dir, INDEX_FILE_NAME);
    const text = gunzipSync(await readFile(file)).toString("utf8");
    const old = text.replace(`"lexical":${LEXICAL_ANALYZER}`, '"lexical":true').replace(/"retry"/g, '"zzz"');
    expect(old).not.toBe(text);
    await writeFile(file, gzipSync(old));

    // Not usable as it stands (the CLI then reads every file again) …
    expect(await VectorStoreIndex.storedSources(dir, {})).toBeUndefined();
    // … and the next build rebuilds the BM25 index from the stored nodes and writes the current version.
    const second = await VectorStoreIndex.fromDocumentsCached(documents, { cacheDir: dir });
    expect((await header()).lexical).toBe(LEXICAL_ANALYZER);
    const again = await second.asRetriever({ similarityTopK: 2 }).retrieve({ query: "retries" });
    expect(again.map(({ node }) => node.id)).toEqual(ranked.map(({ node }) => node.id));
    expect(await VectorStoreIndex.storedSources(dir, {})).toHaveLength(2);
  });
});
