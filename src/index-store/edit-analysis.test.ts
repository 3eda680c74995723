import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { TextNode } from "../schema/text-node.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import { updateStore } from "./store-build.js";
import { openStoreAt } from "./store-location.js";

// The real analyzer, counted: how many chunks an edit analyzes.
vi.mock("../analysis/lexical-tokens.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../analysis/lexical-tokens.js")>();
  return { ...actual, lexicalDocumentTerms: vi.fn(actual.lexicalDocumentTerms) };
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const sections = [
  "Retry queues hold failed jobs until a worker takes them again.",
  "Zebra stripes confuse flies, which land on them less often.",
  "A compact answer packs retrieved chunks into as few calls as fit.",
  "Tree summaries build answers level by level from the leaves up.",
  "The default response mode is compact, as LlamaIndex has it.",
  "Citations name the file and the place in it each quote comes from.",
];

const hidden = ["file_size", "last_modified_at", "reader"];

function file(text: string, modified: string): TextNode {
  return new TextNode({
    id: "notes.md",
    text,
    metadata: { file_size: text.length, last_modified_at: modified, reader: "markdown@1" },
    excludedEmbedMetadataKeys: hidden,
    excludedLlmMetadataKeys: hidden,
  });
}

it("analyzes only the chunks an edit changed (and the ones it removed), not the file's other chunks", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ragsynth-edit-analysis-"));
  dirs.push(dir);
  const store = await openStoreAt(dir);
  const options = {
    embedModel: new HashingEmbedder(),
    splitter: new BlockSplitter({ chunkSize: 24, chunkOverlap: 0 }),
  };
  const analyze = vi.mocked(lexicalDocumentTerms);
  const before = sections.map((section, index) => `## Part ${index}\n\n${section}`).join("\n\n");
  analyze.mockClear();
  const built = await updateStore(store, [file(before, "2026-01-01T00:00:00.000Z")], options);
  const chunks = built.stats.chunks;
  expect(chunks).toBeGreaterThanOrEqual(sections.length);
  expect(analyze.mock.calls.length).toBe(chunks);

  analyze.mockClear();
  const after = `${before} Edited: banner.`;
  const edited = await updateStore(store, [file(after, "2026-01-02T00:00:00.000Z")], options);
  expect(edited.stats.sources.changed).toEqual(["notes.md"]);
  expect(edited.stats.chunks).toBe(chunks);
  // The last chunk, written anew, and its old version, whose postings go: two analyses of the file's chunks.
  expect(analyze.mock.calls.length).toBe(2);
  expect((await store.documentFrequencies(["banner", "zebra"])).get("banner")).toBe(1);
  expect((await store.documentFrequencies(["banner", "zebra"])).get("zebra")).toBe(1);
  await store.close();
});
