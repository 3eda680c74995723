import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import { refreshFolderIndex } from "./folder-index.js";
import { folderIndexOptions } from "./folder-index-options.test.util.js";
import { readFolderDocuments } from "./folder-read.js";
import type { FolderIndexOptions } from "./folder-read-options.js";

// The folder the remembered-listing tests (listing-snapshot.test.ts, listing-changes.test.ts) index: a fresh
// temporary folder per test with its documents under docs/, and the helpers that write and list them.

/** Registers a fresh folder per test (its hooks run before the caller's) and gives the helpers that work in it. */
export function useListingFolder() {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ragsynth-listing-snapshot-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // Times a listing may trust: well before now (a time within the last seconds is not remembered, see RACY_MS).
  let clock = Date.now() / 1000 - 86_400;
  async function age(...paths: string[]): Promise<void> {
    for (const path of paths) {
      clock += 1;
      await utimes(path, clock, clock);
    }
  }

  /**
   * Writes `docs/<name>` and gives it a time in the past; a new file, every folder from it up to docs/ too (their
   * entries changed, as their times tell).
   */
  async function put(name: string, text: string): Promise<void> {
    const path = join(dir, "docs", name);
    const isNew = !existsSync(path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    await age(path, ...(isNew ? foldersUp(dirname(path)) : []));
  }

  function foldersUp(folder: string): string[] {
    const folders: string[] = [];
    for (let at = folder; at.length >= join(dir, "docs").length; at = dirname(at)) folders.push(at);
    return folders;
  }

  function options(more: Partial<FolderIndexOptions> = {}): FolderIndexOptions {
    return folderIndexOptions(dir, ["docs"], { cacheDir: "cache", ...more });
  }

  /** A file's id in the index: its absolute path (the tests run from another working folder than `dir`). */
  const id = (name: string) => join(dir, "docs", name);

  const refresh = async (more: Partial<FolderIndexOptions> = {}) =>
    (await refreshFolderIndex(options(more))).stats;

  async function threeDocs(): Promise<void> {
    await put("modes.md", "# Modes\n\nThe default response mode is compact.\n");
    await put("tree.md", "# Tree\n\ntree_summarize builds summaries level by level.\n");
    await put("guide/start.md", "# Start\n\nInstall it, then ask a question.\n");
  }

  /**
   * Three documents indexed and their listing remembered, then modes.md edited and the folder listed (by the
   * remembered listing: that file alone), not yet built.
   */
  async function listedWithOneEdit() {
    await threeDocs();
    await refresh();
    await refresh();
    await put("modes.md", "# Modes\n\nThe default response mode is compact. Edited.\n");
    const read = await readFolderDocuments(options());
    expect(read.onlyChanged?.documents.map((document) => document.id)).toEqual([id("modes.md")]);
    return read;
  }

  return {
    /** This test's folder. */
    get dir() {
      return dir;
    },
    age,
    put,
    foldersUp,
    options,
    id,
    refresh,
    threeDocs,
    listedWithOneEdit,
  };
}
