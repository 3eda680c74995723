import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { BUILT_IN_READERS } from "../reader/formats/registry.js";
import type { DocumentReader } from "../reader/index.js";
import { defaultCacheDir } from "./folder-cache-dir.js";
import { buildFolderIndex, folderIndexSaved, openFolderIndex, refreshFolderIndex } from "./folder-index.js";
import { folderIndexOptions, topText, twoDocs } from "./folder-index-options.test.util.js";
import { countSkipped } from "./folder-index-stats.js";
import { readFolderDocuments } from "./folder-read.js";
import type { FolderIndexOptions } from "./folder-read-options.js";
import { SKIPPED_READS_FILE } from "./skipped-reads.js";
import type { VectorStoreIndex } from "./vector-store-index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-folder-index-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function options(paths: string[], more: Partial<FolderIndexOptions> = {}): FolderIndexOptions {
  return folderIndexOptions(dir, paths, more);
}

const docs = () => twoDocs(dir);

describe("openFolderIndex", () => {
  it("keeps the index in .ragsynth/ beside the documents, saved while the caller queries", async () => {
    const folder = await docs();
    const opened = await openFolderIndex(options(["docs"]));
    expect(opened.stats).toMatchObject({
      cacheDir: join(folder, ".ragsynth"),
      files: 2,
      formats: { markdown: 2 },
    });
    expect(opened.index.nodes.length).toBe(opened.stats.chunks);
    await folderIndexSaved(opened);
    expect(await topText(opened.index, "default mode")).toContain("compact");
  });

  it("keeps the names the index holds its files by when run from another folder or by another path: nothing is read again", async () => {
    const folder = await docs();
    const cwd = process.cwd();
    const notices: string[] = [];
    const onNotice = ({ message }: { message: string }) => notices.push(message);
    try {
      process.chdir(dir);
      await folderIndexSaved(await openFolderIndex(options(["docs"], { onNotice })));
      process.chdir(folder);
      const inside = await refreshFolderIndex(options(["."], { cwd: folder, onNotice }));
      expect(inside.index).toBeUndefined();
      expect(inside.stats.sources).toEqual({
        added: [],
        changed: [],
        unchanged: ["docs/modes.md", "docs/tree.md"],
        removed: [],
      });
      // Relative links and images in the files resolve from the folder the names are relative to.
      expect(inside.namesFrom).toBe(dir);
      process.chdir(tmpdir());
      const absolute = await refreshFolderIndex(options([folder], { cwd: tmpdir(), onNotice }));
      expect(absolute.stats.sources.unchanged).toEqual(["docs/modes.md", "docs/tree.md"]);
      // An edit made while asking from inside is found under the same name.
      process.chdir(folder);
      await writeFile(join(folder, "tree.md"), "# Tree\n\nNow the tree is different.\n");
      const edited = await openFolderIndex(options(["."], { cwd: folder, onNotice }));
      await folderIndexSaved(edited);
      expect(edited.stats.sources.changed).toEqual(["docs/tree.md"]);
      expect(await topText(edited.index, "tree different")).toContain("different");
      await edited.index.close();
      expect(notices).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it("says why it reads every file again when the index names them from a folder it cannot place", async () => {
    const folder = await docs();
    // A copy of the documents elsewhere, sharing the cache: the stored names lead to no file below it.
    const copy = join(dir, "copy");
    await cp(folder, copy, { recursive: true });
    const cacheDir = join(dir, "shared-cache");
    const cwd = process.cwd();
    const notices: string[] = [];
    const onNotice = ({ message }: { message: string }) => notices.push(message);
    try {
      process.chdir(dir);
      await folderIndexSaved(await openFolderIndex(options(["docs"], { cacheDir, onNotice })));
      expect(notices).toEqual([]);
      process.chdir(copy);
      const again = await refreshFolderIndex(options(["."], { cwd: copy, cacheDir, onNotice }));
      expect(again.stats.sources.added).toEqual(["modes.md", "tree.md"]);
      expect(again.namesFrom).toBe(copy);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(
        /names these files from another working folder \(docs\/modes\.md is modes\.md from here\)/,
      );
      // From the folder it now names them from, nothing to say.
      await refreshFolderIndex(options(["."], { cwd: copy, cacheDir, onNotice }));
      expect(notices).toHaveLength(1);
    } finally {
      process.chdir(cwd);
    }
  });

  it("tells onBuildStart what it has to split before it starts, and nothing when there is none", async () => {
    const folder = await docs();
    const plans: { documents: number; bytes: number }[] = [];
    const onBuildStart = (plan: { documents: number; bytes: number }) => plans.push(plan);
    const size = async (name: string) => (await stat(join(folder, name))).size;
    await refreshFolderIndex(options(["docs"], { onBuildStart }));
    expect(plans).toEqual([{ documents: 2, bytes: (await size("modes.md")) + (await size("tree.md")) }]);
    await refreshFolderIndex(options(["docs"], { onBuildStart }));
    await folderIndexSaved(await openFolderIndex(options(["docs"], { onBuildStart })));
    expect(plans).toHaveLength(1);
    await writeFile(
      join(folder, "tree.md"),
      "# Tree\n\ntree_summarize builds summaries, now level by level by level.\n",
    );
    const opened = await openFolderIndex(options(["docs"], { onBuildStart }));
    await folderIndexSaved(opened);
    await opened.index.close();
    expect(plans[1]).toEqual({ documents: 1, bytes: await size("tree.md") });
  });

  it("reads no file the stored index holds unchanged, and loads no index that is up to date", async () => {
    await docs();
    await folderIndexSaved(await openFolderIndex(options(["docs"])));
    const refreshed = await refreshFolderIndex(options(["docs"]));
    expect(refreshed.index).toBeUndefined();
    expect(refreshed.stats.sources.unchanged).toHaveLength(2);
    await writeFile(join(dir, "docs", "tree.md"), "# Tree\n\nNow the tree is different.\n");
    const rebuilt = await refreshFolderIndex(options(["docs"]));
    expect(rebuilt.index).toBeDefined();
    expect(rebuilt.stats.sources.changed).toHaveLength(1);
  });

  it("knows a file whose time changed but whose bytes did not without parsing it again, and records its new time", async () => {
    const folder = await docs();
    const modes = join(folder, "modes.md");
    await folderIndexSaved(await openFolderIndex(options(["docs"])));
    const markdown = BUILT_IN_READERS.find((reader) => reader.format === "markdown") as DocumentReader;
    const parsed = vi.spyOn(markdown, "read");
    try {
      // Touched (or copied, or checked out again): a new time, the same bytes.
      const later = new Date(Date.now() + 60_000);
      await utimes(modes, later, later);
      const touched = await refreshFolderIndex(options(["docs"]));
      expect(touched.stats.sources).toEqual({
        added: [],
        changed: [],
        unchanged: [modes, join(folder, "tree.md")],
        removed: [],
      });
      expect(parsed).not.toHaveBeenCalled();
      expect(touched.stats.formats).toEqual({ markdown: 2 });
      await touched.index?.close();
      // The new time is recorded: the next run finds the index up to date.
      const again = await refreshFolderIndex(options(["docs"]));
      expect(again.index).toBeUndefined();
      expect(again.stats.sources.unchanged).toHaveLength(2);

      // The same size with other bytes, at a new time: parsed and indexed.
      const before = await readFile(modes, "utf8");
      const edited = before.replace("compact", "refined");
      expect(edited.length).toBe(before.length);
      await writeFile(modes, edited);
      const evenLater = new Date(Date.now() + 120_000);
      await utimes(modes, evenLater, evenLater);
      const changed = await refreshFolderIndex(options(["docs"]));
      expect(changed.stats.sources.changed).toEqual([modes]);
      expect(parsed).toHaveBeenCalledTimes(1);
      expect(await topText(changed.index as VectorStoreIndex, "default response mode")).toContain("refined");
      await changed.index?.close();

      // Another reader for the ending makes another document from the same bytes: read whole, not compared.
      const readAsText = options(["docs"], { walk: { ...options([]).walk, readAs: { ".md": "text" } } });
      const plain = BUILT_IN_READERS.find((reader) => reader.format === "text") as DocumentReader;
      const plainRead = vi.spyOn(plain, "read");
      try {
        const asText = await refreshFolderIndex(readAsText);
        expect(asText.stats.formats).toEqual({ text: 2 });
        expect(plainRead).toHaveBeenCalledTimes(2);
        await asText.index?.close();
        // Recorded with the text reader: up to date for it now.
        expect((await refreshFolderIndex(readAsText)).index).toBeUndefined();
        expect(plainRead).toHaveBeenCalledTimes(2);
      } finally {
        plainRead.mockRestore();
      }
      expect(parsed).toHaveBeenCalledTimes(1);
    } finally {
      parsed.mockRestore();
    }
  });

  it("opens an index that holds every file unchanged without writing it, reporting what a build reports", async () => {
    await docs();
    const first = await openFolderIndex(options(["docs"]));
    await folderIndexSaved(first);
    expect(await first.index.saved).toBeDefined();
    await first.index.close();
    const read = await readFolderDocuments(options(["docs"]));
    const ids = read.documents().map((document) => document.id);
    expect(ids).toHaveLength(2);
    expect(read.unchanged?.sources.unchanged).toEqual(ids);
    const opened = await buildFolderIndex(read, {
      persist: "background",
      signal: new AbortController().signal,
    });
    expect(await opened.index.saved).toBeUndefined();
    expect(opened.stats).toMatchObject({ files: 2, chunks: first.stats.chunks, embedded: 0 });
    expect(opened.stats.sources).toEqual({
      added: [],
      changed: [],
      unchanged: ids,
      removed: [],
    });
    expect(await topText(opened.index, "default mode")).toContain("compact");
    // The index queries the store the listing opened to read the fingerprints (one open per ask): closing the
    // index closes that store.
    const held = read.openStore;
    expect(held).toBeDefined();
    expect(await held?.meta()).toMatchObject({ embedderId: opened.embedModel.id });
    await opened.index.close();
    await expect(async () => held?.meta()).rejects.toThrow(/not open/);
    // One file gone: something to do, so the build runs and says what it removed, writing to the store the listing
    // held open (not opening it again): closing the index closes that store.
    await rm(join(dir, "docs", "tree.md"));
    const afterRemoval = await readFolderDocuments(options(["docs"]));
    expect(afterRemoval.unchanged).toBeUndefined();
    const heldForBuild = afterRemoval.openStore;
    expect(heldForBuild).toBeDefined();
    const rebuilt = await buildFolderIndex(afterRemoval, {
      persist: "await",
      signal: new AbortController().signal,
    });
    expect(rebuilt.stats.sources).toMatchObject({ unchanged: [ids[0]], removed: [ids[1]] });
    expect(await heldForBuild?.sources()).toEqual([expect.objectContaining({ id: ids[0] })]);
    await rebuilt.index.close();
    await expect(async () => heldForBuild?.sources()).rejects.toThrow(/not open/);
  });

  it("builds when the index it found unchanged was replaced by another embedding model's before it opened it", async () => {
    await docs();
    await folderIndexSaved(await openFolderIndex(options(["docs"])));
    const read = await readFolderDocuments(options(["docs"]));
    expect(read.unchanged).toBeDefined();
    // Another process rebuilds the index with another embedding model meanwhile.
    const other = await refreshFolderIndex(
      options(["docs"], { embedModel: new HashingEmbedder({ dimensions: 64 }) }),
    );
    expect(other.stats.sources.added).toHaveLength(2);
    const opened = await buildFolderIndex(read, { persist: "await", signal: new AbortController().signal });
    // Built anew for the listing's embedding model: every file added again, none found unchanged.
    expect(opened.stats.sources).toMatchObject({
      added: read.documents().map((document) => document.id),
      unchanged: [],
    });
    expect(await topText(opened.index, "default mode")).toContain("compact");
    await opened.index.close();
    expect((await refreshFolderIndex(options(["docs"]))).stats.sources.unchanged).toHaveLength(2);
  });

  it("reports files it read and skipped before without reading them again, while they keep size, time and reader", async () => {
    const folder = await docs();
    const blob = join(folder, "blob.bin");
    const koi8 = join(folder, "koi8.txt");
    await writeFile(blob, Buffer.from([0, 1, 2, 0, 0, 255]));
    await writeFile(koi8, Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4])); // "Привет" in KOI8-R
    // Another working folder than the process's: files go by their absolute paths.
    const skips = (stats: { skipped: { path: string; code: string }[] }) =>
      stats.skipped.map(({ path, code }) => `${code} ${relative(dir, path)}`);
    const first = await openFolderIndex(options(["docs"]));
    await folderIndexSaved(first);
    expect(skips(first.stats)).toEqual(["binary docs/blob.bin", "invalid_utf8 docs/koi8.txt"]);
    const kept = () => readFile(join(folder, ".ragsynth", SKIPPED_READS_FILE), "utf8").then(JSON.parse);
    expect(Object.keys((await kept()).files)).toEqual([blob, koi8]);

    // Text now, but the same size and modification time: the index trusts both, as it does for its own files, so
    // the file is reported as before, which shows it was not read.
    const { mtime } = await stat(blob);
    await writeFile(blob, "hello!");
    await utimes(blob, mtime, mtime);
    const again = await refreshFolderIndex(options(["docs"]));
    expect(again.index).toBeUndefined();
    expect(skips(again.stats)).toEqual(["binary docs/blob.bin", "invalid_utf8 docs/koi8.txt"]);
    expect(again.stats.skipped[0]?.reason).toBe("binary file (contains NUL bytes)");

    // Changed: read again, and indexed now that it is UTF-8; removed: forgotten.
    await writeFile(koi8, "Привет, now in UTF-8");
    await rm(blob);
    const changed = await refreshFolderIndex(options(["docs"]));
    expect(changed.stats.sources.added).toEqual([koi8]);
    expect(changed.stats.skipped).toEqual([]);
    await changed.index?.close();
    await expect(kept()).rejects.toThrow(/ENOENT/);
  });

  it("refuses a folder with nothing to read, saying what was skipped", async () => {
    await mkdir(join(dir, "empty"));
    await writeFile(join(dir, "empty", "blob.bin"), Buffer.from([0, 1, 2, 0, 0, 255]));
    const failure = await openFolderIndex(options(["empty"])).catch((error: unknown) => error);
    expect(RagsynthError.isInstance(failure) && failure.code).toBe("document_read");
    expect((failure as Error).message).toMatch(/^No documents to read in empty \(1 skipped: .*blob\.bin/);
    // The folder is left as it was found: no .ragsynth/ of an index of nothing.
    await expect(stat(join(dir, "empty", ".ragsynth"))).rejects.toThrow(/ENOENT/);
    // A cache folder given that was there stays, without an index file this run made.
    await mkdir(join(dir, "given-cache"));
    const again = await openFolderIndex(options(["empty"], { cacheDir: "given-cache" })).catch(
      (error) => error,
    );
    expect(RagsynthError.isInstance(again) && again.code).toBe("document_read");
    expect(await readdir(join(dir, "given-cache"))).toEqual([]);
  });

  it("keeps an index it did not make when every file of it turned unreadable", async () => {
    const folder = await docs();
    const first = await openFolderIndex(options(["docs"]));
    await folderIndexSaved(first);
    await first.index.close();
    for (const name of ["modes.md", "tree.md"])
      await writeFile(join(folder, name), Buffer.from([0, 1, 0, 2]));
    const failure = await openFolderIndex(options(["docs"])).catch((error: unknown) => error);
    expect(RagsynthError.isInstance(failure) && failure.code).toBe("document_read");
    expect((await readdir(join(folder, ".ragsynth"))).filter((name) => name.endsWith(".sqlite"))).toEqual([
      "ragsynth-index.sqlite",
    ]);
  });

  it("keeps the index in the user cache folder, with a notice, when the default folder cannot be written", async () => {
    if (process.getuid?.() === 0) return; // root writes everywhere: no read-only folder to test with
    const folder = await docs();
    const { chmod } = await import("node:fs/promises");
    await chmod(folder, 0o555);
    const notices: string[] = [];
    try {
      const opened = await openFolderIndex(options(["docs"], { onNotice: ({ kind }) => notices.push(kind) }));
      await folderIndexSaved(opened);
      expect(opened.stats.cacheDir.startsWith(join(dir, "user-cache"))).toBe(true);
      expect(notices).toEqual(["read-only"]);
    } finally {
      await chmod(folder, 0o755);
    }
  });
});

describe("defaultCacheDir and countSkipped", () => {
  it("puts the cache in the nearest folder that holds every path given", async () => {
    const folder = await docs();
    await mkdir(join(dir, "more"));
    expect(await defaultCacheDir(["docs/modes.md"], dir)).toBe(join(folder, ".ragsynth"));
    expect(await defaultCacheDir(["docs", "more"], dir)).toBe(join(dir, ".ragsynth"));
  });

  it("counts skips by reason, most first", () => {
    const skip = (code: "binary" | "ignored") => ({ path: "x", code, reason: code });
    expect(Object.entries(countSkipped([skip("binary"), skip("ignored"), skip("ignored")]))).toEqual([
      ["ignored", 2],
      ["binary", 1],
    ]);
  });
});
