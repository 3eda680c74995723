import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import { fallbackCacheDir } from "./folder-cache-dir.js";
import { folderIndexSaved, openFolderIndex, refreshFolderIndex } from "./folder-index.js";
import { folderIndexOptions, topText, twoDocs } from "./folder-index-options.test.util.js";
import type { FolderIndexOptions } from "./folder-read-options.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-indexed-folder-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function options(paths: string[], more: Partial<FolderIndexOptions> = {}): FolderIndexOptions {
  return folderIndexOptions(dir, paths, more);
}

const docs = () => twoDocs(dir);

describe("openFolderIndex with refresh: false", () => {
  it("answers from the index as it was built: no file is listed or read, edits and removals since are not seen", async () => {
    const folder = await docs();
    await folderIndexSaved(await openFolderIndex(options(["docs"])));
    await writeFile(join(folder, "modes.md"), "# Modes\n\nThe default response mode is refine now.\n");
    await rm(join(folder, "tree.md"));
    await writeFile(join(folder, "new.md"), "# New\n\nA file added after the build.\n");
    const opened = await openFolderIndex(options(["docs"], { refresh: false }));
    expect(opened.stats).toMatchObject({
      cacheDir: join(folder, ".ragsynth"),
      files: 2,
      formats: { markdown: 2 },
      skipped: [],
      embedded: 0,
      // Named as the build named them (run from another working folder than `dir`: by their absolute paths).
      sources: {
        added: [],
        changed: [],
        unchanged: [join(folder, "modes.md"), join(folder, "tree.md")],
        removed: [],
      },
    });
    expect(opened.namesFrom).toBe(dir);
    expect(await topText(opened.index, "default response mode")).toContain("compact");
    expect(await topText(opened.index, "level by level")).toContain("tree_summarize");
    await folderIndexSaved(opened);
    await opened.index.close();
    // Refreshed, the same index sees them.
    const refreshed = await refreshFolderIndex(options(["docs"]));
    expect(refreshed.stats.sources).toMatchObject({
      added: [join(folder, "new.md")],
      changed: [join(folder, "modes.md")],
      removed: [join(folder, "tree.md")],
    });
  });

  it("refuses when there is no index built with these settings, and makes no cache folder", async () => {
    const folder = await docs();
    const missing = await openFolderIndex(options(["docs"], { refresh: false })).catch(
      (error: unknown) => error,
    );
    expect(RagsynthError.isInstance(missing) && missing.code).toBe("index_load");
    expect((missing as Error).message).toContain("ragsynth index docs");
    expect(await readdir(folder)).toEqual(["modes.md", "tree.md"]);
    await folderIndexSaved(await openFolderIndex(options(["docs"])));
    const otherSize = await openFolderIndex(
      options(["docs"], {
        refresh: false,
        splitter: new BlockSplitter({ chunkSize: 100, chunkOverlap: 20 }),
      }),
    ).catch((error: unknown) => error);
    expect(RagsynthError.isInstance(otherSize) && otherSize.code).toBe("index_load");
    const both = await openFolderIndex(options(["docs"], { refresh: false, rebuild: true })).catch(
      (error: unknown) => error,
    );
    expect(InvalidArgumentError.isInstance(both) && both.parameter).toBe("rebuild");
  });

  it("finds the index a read-only folder's build kept in the user cache folder", async () => {
    const folder = await docs();
    const fallback = fallbackCacheDir(join(folder, ".ragsynth"), join(dir, "user-cache"));
    await folderIndexSaved(await openFolderIndex(options(["docs"], { cacheDir: fallback })));
    const opened = await openFolderIndex(options(["docs"], { refresh: false }));
    expect(opened.stats.cacheDir).toBe(fallback);
    expect(await topText(opened.index, "default response mode")).toContain("compact");
    await opened.index.close();
  });
});
