import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type { FolderIndexOptions } from "./folder-read-options.js";
import type { VectorStoreIndex } from "./vector-store-index.js";

/**
 * A folder index's options as the tests open one: `paths` read from `dir` (the working folder), the offline
 * embedder, the default walk, the user cache folder inside `dir`; `more` on top.
 */
export function folderIndexOptions(
  dir: string,
  paths: string[],
  more: Partial<FolderIndexOptions> = {},
): FolderIndexOptions {
  return {
    paths,
    walk: { include: [], exclude: [], readAs: {}, noIgnore: false, hidden: false, followSymlinks: false },
    cacheDir: undefined,
    embedModel: new HashingEmbedder(),
    embedLabel: "hashing",
    rebuild: false,
    cwd: dir,
    userCacheDir: join(dir, "user-cache"),
    signal: new AbortController().signal,
    ...more,
  };
}

/** `dir/docs` with two Markdown files: modes.md (the default mode is compact) and tree.md (tree_summarize). */
export async function twoDocs(dir: string): Promise<string> {
  const folder = join(dir, "docs");
  await mkdir(folder);
  await writeFile(join(folder, "modes.md"), "# Modes\n\nThe default response mode is compact.\n");
  await writeFile(join(folder, "tree.md"), "# Tree\n\ntree_summarize builds summaries level by level.\n");
  return folder;
}

/** The text of the chunk `index` ranks first for `query`. */
export async function topText(index: VectorStoreIndex, query: string): Promise<string | undefined> {
  const retrieved = await index.asRetriever({ similarityTopK: 1 }).retrieve({ query });
  return retrieved[0]?.node.text;
}
