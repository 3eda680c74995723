import { describe, expect, it } from "vitest";
import { setDocumentBlocks } from "../reader/document-blocks.js";
import type { DocumentBlock } from "../reader/formats/types.js";
import { TextNode } from "../schema/text-node.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import type { NodeParser } from "./build-index-options.js";
import { VectorStoreIndex } from "./vector-store-index.js";

/** One large document of paragraph blocks: splitting it takes far longer than one ~50 ms slice. */
function largeDocument(): TextNode {
  const blocks: DocumentBlock[] = Array.from({ length: 6000 }, (_, index) => ({
    kind: "paragraph",
    text: `Paragraph ${index} says that the retry policy waits ${index} milliseconds before the next attempt, and that the timeout of each call is counted apart from the queue.`,
    lines: { start: index * 2 + 1, end: index * 2 + 1 },
  }));
  const document = new TextNode({
    id: "big.txt",
    text: blocks.map((block) => block.text).join("\n\n"),
    metadata: { file_path: "big.txt" },
  });
  setDocumentBlocks(document, blocks);
  return document;
}

/** Busy for `ms` milliseconds: the work of a slow chunk, the same on a fast machine as on a loaded one. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

/**
 * A BlockSplitter that counts the nodes it hands out one at a time, spends 1 ms on each (so the document's split spans
 * several ~50 ms slices on any machine: on a fast one the real split of 239 chunks fits in one slice, and the build
 * finished before it heard the abort) and calls `onFirst` as it hands out the first.
 */
function countingSplitter(onFirst: () => void): NodeParser & { handedOut: () => number } {
  const inner = new BlockSplitter();
  let handedOut = 0;
  return {
    getNodesFromDocuments: (documents) => inner.getNodesFromDocuments(documents),
    *iterateNodes(document) {
      for (const node of inner.iterateNodes(document)) {
        handedOut++;
        if (handedOut === 1) onFirst();
        busyFor(1);
        yield node;
      }
    },
    handedOut: () => handedOut,
  };
}

describe("index building inside one large document", () => {
  it("hears an abort between chunks of the document, not only after it (Ctrl-C and SIGTERM in the split)", async () => {
    const total = new BlockSplitter().getNodesFromDocuments([largeDocument()]).length;
    expect(total).toBeGreaterThan(100);
    const controller = new AbortController();
    // Aborted as soon as the build gives the event loop a turn after its split began (aborted before that, as a
    // loaded machine's slow start let it be, the build stops before splitting anything: a test of another thing).
    const splitter = countingSplitter(() =>
      setImmediate(() => controller.abort(new DOMException("Stopped by SIGINT", "AbortError"))),
    );
    const building = VectorStoreIndex.fromDocuments([largeDocument()], {
      splitter,
      signal: controller.signal,
    });
    await expect(building).rejects.toMatchObject({ name: "AbortError" });
    expect(splitter.handedOut()).toBeGreaterThan(0);
    expect(splitter.handedOut()).toBeLessThan(total);
  });

  it("gives the same nodes one at a time as all at once", () => {
    const splitter = new BlockSplitter();
    const all = splitter.getNodesFromDocuments([largeDocument()]);
    const oneByOne = [...splitter.iterateNodes(largeDocument())];
    expect(oneByOne.map((node) => [node.id, node.text])).toEqual(all.map((node) => [node.id, node.text]));
  });
});
