// A child process for the crash and concurrency tests: indexes documents into the index at argv[2] (a folder for
// SQLite, or a postgres:// URL).
//   index <dir> <documents> <lines>: indexes once (slowly: each embedding call waits), prints a line per committed
//     group and, at the end, the build's stats as JSON.
//   churn <dir>: rewrites documents with new words until killed, printing a line per committed write.
//   ask <dir> [askers]: asks (BM25 over the store, one snapshot each; `askers` loops at once) until it has seen 3
//     committed states of the documents, then prints {asks, torn, states} as JSON; `torn` counts asks whose
//     statistics disagreed with their rows.
import { setTimeout as sleep } from "node:timers/promises";
import { openStoreAt } from "../../src/index-store/store-location.js";
import { VectorStoreIndex } from "../../src/index-store/vector-store-index.js";
import { TextNode } from "../../src/schema/text-node.js";
import { isPostgresUrl } from "../../src/store/open-postgres-store.js";
import { createStoreLexicalSearch } from "../../src/store/store-lexical-search.js";

const [mode, dir, documentCount = "6", lineCount = "260"] = process.argv.slice(2);
if (!dir) throw new Error("usage: indexer-child.ts index|churn|ask <dir|url> [documents] [lines]");
const where = isPostgresUrl(dir) ? { store: dir } : { cacheDir: dir };

// One chunk per line: a document of 260 lines is one group (256 chunks or more) and so one transaction.
const splitter = {
  getNodesFromDocuments: (documents: readonly TextNode[]) =>
    documents.flatMap((document) =>
      document.text
        .split("\n")
        .map((line, index) => new TextNode({ id: `${document.id}#${index}`, text: line, metadata: {} })),
    ),
};
const embedModel = {
  id: "slow-test-embedder",
  async getTextEmbeddings(texts: string[]) {
    await sleep(20);
    return texts.map((text) => [text.length, 1, 2, 3]);
  },
  async getQueryEmbedding(query: string) {
    return [query.length, 1, 2, 3];
  },
};

function documents(round: number): TextNode[] {
  return Array.from({ length: Number(documentCount) }, (_, index) => {
    const lines = Array.from(
      { length: Number(lineCount) },
      (_, line) => `document ${index} line ${line} round${round} zebra${(line + round) % 7}`,
    );
    return new TextNode({
      id: `doc-${index}.md`,
      text: lines.join("\n"),
      metadata: {
        file_size: 1000 + round,
        last_modified_at: `2026-12-02T00:00:${String(round % 60).padStart(2, "0")}Z`,
      },
    });
  });
}

if (mode === "index") {
  const index = await VectorStoreIndex.fromDocumentsCached(documents(0), {
    ...where,
    embedModel,
    splitter,
    onLexicalProgress: ({ added }) => process.stdout.write(`committed ${added}\n`),
  });
  process.stdout.write(`${JSON.stringify(index.buildStats)}\n`);
} else if (mode === "ask") {
  // ask <dir|url> [askers]: `askers` loops at once in this process, each on its own snapshots.
  const store = await openStoreAt(dir);
  const search = createStoreLexicalSearch(store);
  const states = new Set<string>();
  let asks = 0;
  let torn = 0;
  const askers = Number(process.argv[4] ?? "1");
  const deadline = Date.now() + 60_000;
  const loop = async () => {
    while (states.size < 3 && asks < 1_000_000 && Date.now() < deadline) {
      const seen = await store.read(async () => {
        const sources = await store.sources();
        return {
          hits: (await search.search("zebra3 document line", { topK: 4 })).length,
          documents: (await store.statistics()).documents,
          sourceChunks: sources.reduce((sum, source) => sum + source.chunkCount, 0),
          state: sources.map((source) => source.contentHash).join(),
        };
      });
      if (seen.documents !== seen.sourceChunks || seen.hits !== 4) torn++;
      states.add(seen.state);
      asks++;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: askers }, loop));
  await store.close();
  process.stdout.write(`${JSON.stringify({ asks, torn, states: states.size })}\n`);
} else {
  for (let round = 1; ; round++) {
    const index = await VectorStoreIndex.fromDocumentsCached(documents(round), {
      ...where,
      embedModel,
      splitter,
    });
    await index.close();
    process.stdout.write(`round ${round}\n`);
  }
}
