import { existsSync, lstatSync } from "node:fs";
import { mkdir, readFile, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import { SQLITE_INDEX_FILE } from "../store/open-sqlite-store.js";
import { buildFolderIndex, folderIndexSaved, openFolderIndex, refreshFolderIndex } from "./folder-index.js";
import type { FolderIndexStats } from "./folder-index-stats.js";
import type { FolderIndexOptions } from "./folder-read-options.js";
import { useListingFolder } from "./listing-snapshot.test.util.js";
import { LISTING_SNAPSHOT_FILE } from "./listing-snapshot-file.js";

const folder = useListingFolder();
const { age, put, foldersUp, options, id, refresh, threeDocs, listedWithOneEdit } = folder;
let dir: string;
beforeEach(() => {
  dir = folder.dir;
});

describe("a remembered listing", () => {
  it("is written once the index is found up to date, and then no folder is walked again", async () => {
    await threeDocs();
    const first = await refresh();
    expect(first.sources.added).toHaveLength(3);
    expect(first.remembered).toBeUndefined();
    // Built: nothing remembered yet (the store changed); found up to date: remembered.
    expect(existsSync(join(dir, "cache", LISTING_SNAPSHOT_FILE))).toBe(false);
    const second = await refresh();
    expect(second.remembered).toBeUndefined();
    expect(existsSync(join(dir, "cache", LISTING_SNAPSHOT_FILE))).toBe(true);
    const third = await refresh();
    expect(third.remembered).toEqual({ relisted: 0, rowsRead: false });
    expect(comparable(third)).toEqual(comparable(second));
  });

  it("is not written while a file's time is within seconds of now, and is with a time hours ahead", async () => {
    await threeDocs();
    const now = Date.now() / 1000;
    await utimes(join(dir, "docs", "tree.md"), now, now);
    await refresh();
    await refresh();
    expect(existsSync(join(dir, "cache", LISTING_SNAPSHOT_FILE))).toBe(false);
    // A time no change made now can give (a clock ahead elsewhere, an archive's): remembered.
    await utimes(join(dir, "docs", "tree.md"), now + 5 * 3600, now + 5 * 3600);
    await refresh();
    await refresh();
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
  });

  it("lists a file edited in place again, alone, and remembers its new time once the index holds it", async () => {
    await threeDocs();
    await refresh();
    await refresh();
    await put("guide/start.md", "# Start\n\nInstall it, then ask a question. Edited.\n");
    const edited = await refresh();
    // Listed again alone, and built alone: the store's rows were not read.
    expect(edited.remembered).toEqual({ relisted: 1, rowsRead: false });
    expect(edited.sources.changed).toEqual([id("guide/start.md")]);
    expect(edited.sources.unchanged).toEqual([id("modes.md"), id("tree.md")]);
    // This run alone wrote the rows since they were checked: the listing is remembered again, with the new time.
    const after = await refresh();
    expect(after.remembered).toEqual({ relisted: 0, rowsRead: false });
    expect(after.sources.unchanged).toEqual([id("guide/start.md"), id("modes.md"), id("tree.md")]);
    // A file edited within the last seconds is listed again until its time is old enough to trust.
    await writeFile(id("tree.md"), "# Tree\n\ntree_summarize builds summaries level by level. Now.\n");
    expect((await refresh()).remembered).toEqual({ relisted: 1, rowsRead: false });
    expect((await refresh()).remembered).toEqual({ relisted: 1, rowsRead: false });
    await age(id("tree.md"));
    const aged = await refresh();
    expect(aged.remembered).toEqual({ relisted: 1, rowsRead: false });
    expect(aged.sources.changed).toEqual([]);
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
  });

  it("is not remembered again after a build when another writer changed the rows meanwhile", async () => {
    const read = await listedWithOneEdit();
    // Another process writes a row between this run's check and its build.
    const db = new Database(join(dir, "cache", SQLITE_INDEX_FILE));
    db.prepare("UPDATE sources SET size = size + 1 WHERE id = ?").run(id("tree.md"));
    db.close();
    const built = await buildFolderIndex(read, { persist: "await", signal: new AbortController().signal });
    await built.index.close();
    expect(built.stats.sources.changed).toEqual([id("modes.md")]);
    // Nothing was remembered again: the next run reads the rows, and lists both files again (modes.md has a new time,
    // tree.md's row is not the remembered one).
    const after = await refresh();
    expect(after.remembered).toEqual({ relisted: 2 });
    expect(after.sources.unchanged).toEqual([id("guide/start.md"), id("modes.md"), id("tree.md")]);
    // That run was the only writer since it read the rows (it recorded tree.md's fingerprint again): it remembered
    // the listing with the rows it left.
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
  });

  it("builds every file when another process rebuilt the index for other settings after the check", async () => {
    const read = await listedWithOneEdit();
    // Another process rebuilds the same cache with another splitter meanwhile (it holds all three files).
    const other = await refreshFolderIndex(
      options({ splitter: new BlockSplitter({ chunkSize: 64, chunkOverlap: 8 }) }),
    );
    expect(other.stats.files).toBe(3);
    const built = await buildFolderIndex(read, { persist: "await", signal: new AbortController().signal });
    await built.index.close();
    // This build's settings are the store's again, with every file in it, not only the one listed again.
    expect(built.stats.files).toBe(3);
    expect(built.stats.sources.added).toEqual([id("guide/start.md"), id("modes.md"), id("tree.md")]);
    const after = await refresh();
    expect(after.sources.unchanged).toEqual([id("guide/start.md"), id("modes.md"), id("tree.md")]);
  });

  it("is not used when a file is added or removed, or an ignore file is edited in place", async () => {
    await threeDocs();
    await put(".gitignore", "drafts/\n");
    await refresh();
    await refresh();
    await put("guide/more.md", "# More\n\nAnother page.\n");
    const added = await refresh();
    expect(added.remembered).toBeUndefined();
    expect(added.sources.added).toEqual([id("guide/more.md")]);
    // Listed in full and built by that run alone: remembered with the rows it wrote.
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });

    await rm(join(dir, "docs", "tree.md"));
    await age(join(dir, "docs"));
    const removed = await refresh();
    expect(removed.remembered).toBeUndefined();
    expect(removed.sources.removed).toEqual([id("tree.md")]);

    await refresh();
    // Same folder entries, same name: only the ignore file's own time tells.
    await put(".gitignore", "drafts/\nguide/\n");
    const ignored = await refresh();
    expect(ignored.remembered).toBeUndefined();
    expect(ignored.sources.removed).toEqual([id("guide/more.md"), id("guide/start.md")]);
  });

  it("is not used when an ignore file above the folder, in its repository, changes", async () => {
    await mkdir(join(dir, ".git"));
    await threeDocs();
    await refresh();
    await refresh();
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    await writeFile(join(dir, ".gitignore"), "docs/tree.md\n");
    await age(join(dir, ".gitignore"));
    const after = await refresh();
    expect(after.remembered).toBeUndefined();
    expect(after.sources.removed).toEqual([id("tree.md")]);
  });

  it("is kept for a folder with symbolic links, and not used once a link leads elsewhere", async () => {
    await threeDocs();
    // A link read as the document (met before its target, which is then a duplicate), as Debian's man pages have
    // them, and a link leading out of the folder through another one (an alternative, /etc/alternatives/…).
    await symlink(join(dir, "docs", "modes.md"), join(dir, "docs", "a-modes.md"));
    await mkdir(join(dir, "alternatives"));
    await writeFile(join(dir, "alternatives", "outside.md"), "# Outside\n\nNot in the folder.\n");
    await symlink(join(dir, "alternatives", "outside.md"), join(dir, "alternatives", "current"));
    await symlink(join(dir, "alternatives", "current"), join(dir, "docs", "alt.md"));
    await age(join(dir, "docs"));
    await refresh();
    await refresh();
    expect(existsSync(join(dir, "cache", LISTING_SNAPSHOT_FILE))).toBe(true);
    const used = await refresh();
    expect(used.remembered).toEqual({ relisted: 0, rowsRead: false });
    expect(used.files).toBe(3);
    // The linked file edited: its time moved, and it is also the duplicate passed over under its own name (a file
    // skipped that changed), so the folder is listed in full; the document, named by the link, is read again.
    await put("modes.md", "# Modes\n\nThe default response mode is compact. Linked.\n");
    const edited = await refresh();
    expect(edited.remembered).toBeUndefined();
    expect(edited.sources.changed).toEqual([id("a-modes.md")]);
    await refresh();
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    // The alternative re-pointed into the folder: no time the listing looks at moved, but alt.md now leads to
    // tree.md (read as a document in its place): the folder is listed in full.
    await rm(join(dir, "alternatives", "current"));
    await symlink(join(dir, "docs", "tree.md"), join(dir, "alternatives", "current"));
    const repointed = await refresh();
    expect(repointed.remembered).toBeUndefined();
    expect(repointed.sources.added).toEqual([id("alt.md")]);
    expect(repointed.sources.removed).toEqual([id("tree.md")]);
  });

  it("is not used when its file is not ours", async () => {
    await threeDocs();
    await refresh();
    await refresh();
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    await writeFile(join(dir, "cache", LISTING_SNAPSHOT_FILE), JSON.stringify({ format: 1, key: "x" }));
    expect((await refresh()).remembered).toBeUndefined();
  });

  it("is not used when one of its files is not as written (each field's type, the document's parts)", async () => {
    await threeDocs();
    await refresh();
    await refresh();
    const path = join(dir, "cache", LISTING_SNAPSHOT_FILE);
    const written = await readFile(path, "utf8");
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    const damages: ((file: unknown[]) => unknown)[] = [
      () => "not a file",
      (file) => file.slice(0, 4),
      (file) => [1, ...file.slice(1)],
      (file) => [file[0], null, ...file.slice(2)],
      (file) => [file[0], file[1], "12", ...file.slice(3)],
      (file) => [...file.slice(0, 3), null, file[4]],
      (file) => [...file.slice(0, 4), "markdown"],
      (file) => [...file.slice(0, 4), (file[4] as unknown[]).slice(0, 2)],
      (file) => [...file.slice(0, 4), [...(file[4] as unknown[]).slice(0, 2), 0]],
    ];
    for (const damage of damages) {
      const snapshot = JSON.parse(written);
      // The last file: the checks must reach past the first.
      snapshot.files[snapshot.files.length - 1] = damage(snapshot.files.at(-1));
      await writeFile(path, JSON.stringify(snapshot));
      expect((await refresh()).remembered).toBeUndefined();
      await writeFile(path, written);
    }
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
  });

  it("notices a store row another writer changed (its rows' version moved), and lists that file again", async () => {
    await threeDocs();
    await refresh();
    await refresh();
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    const db = new Database(join(dir, "cache", SQLITE_INDEX_FILE));
    db.prepare("UPDATE sources SET size = size + 1 WHERE id = ?").run(id("tree.md"));
    db.close();
    const after = await refresh();
    expect(after.remembered).toEqual({ relisted: 1 });
    expect(after.sources.unchanged).toContain(id("tree.md"));
    // That run recorded tree.md's fingerprint again, the only writer since it read the rows: it remembered the
    // listing with them.
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
  });

  it("reads no file outside the folders given that a forged one names", async () => {
    await threeDocs();
    await writeFile(join(dir, "secret.md"), "# Secret\n\nThe password is hunter2.\n");
    await refresh();
    await refresh();
    const path = join(dir, "cache", LISTING_SNAPSHOT_FILE);
    const snapshot = JSON.parse(await readFile(path, "utf8"));
    // The first document's row now points at a file outside docs/, with a time that makes it look edited.
    snapshot.files[0][0] = join(dir, "secret.md");
    snapshot.files[0][3] = 1;
    await writeFile(path, JSON.stringify(snapshot));
    const after = await refreshFolderIndex(options());
    expect(after.stats.remembered).toBeUndefined();
    expect(after.stats.sources.changed).toEqual([]);
    const opened = await openFolderIndex(options());
    expect(opened.index.nodes.map((node) => node.text).join("\n")).not.toContain("hunter2");
    await folderIndexSaved(opened);
  });

  it("is not used by another walk (other rules, another reader for an ending)", async () => {
    await threeDocs();
    await refresh();
    await refresh();
    const walk = { ...options().walk, exclude: ["tree.md"] };
    const excluded = await refresh({ walk });
    expect(excluded.remembered).toBeUndefined();
    expect(excluded.sources.removed).toEqual([id("tree.md")]);
  });

  it("gives what a full listing gives, whatever is done to the folder in between (a run without it, beside)", async () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constant("edit" as const), file: fc.nat(7), text: fc.string({ maxLength: 20 }) }),
      fc.record({ kind: fc.constant("touch" as const), file: fc.nat(7) }),
      // The same size, other bytes: only the time tells.
      fc.record({ kind: fc.constant("flip" as const), file: fc.nat(7) }),
      fc.record({ kind: fc.constant("remove" as const), file: fc.nat(7) }),
      fc.record({ kind: fc.constant("ignore" as const), file: fc.nat(7) }),
      fc.record({ kind: fc.constant("binary" as const), file: fc.nat(7) }),
      // A link added beside the files (its folder's time moves), and the alternative docs/alt.md leads through
      // re-pointed (no time in the folder moves): to a file of the folder, or out of it (8).
      fc.record({ kind: fc.constant("link" as const), file: fc.nat(7) }),
      fc.record({ kind: fc.constant("repoint" as const), file: fc.nat(8) }),
    );
    // How often the remembered listing was used, and with files listed again: the property must reach both.
    const used = { remembered: 0, relisted: 0, refused: 0 };
    const names = ["a.md", "b.txt", "sub/c.md", "sub/d.md", "sub/deep/e.md", "f.md", "sub/g.txt", "h.md"];
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 8 }), async (operations) => {
        await rm(join(dir, "docs"), { recursive: true, force: true });
        await rm(join(dir, "cache"), { recursive: true, force: true });
        await rm(join(dir, "full"), { recursive: true, force: true });
        await rm(join(dir, "alternatives"), { recursive: true, force: true });
        for (const name of names.slice(0, 5)) await put(name, `# ${name}\n\nThe text of ${name}.\n`);
        await mkdir(join(dir, "alternatives"));
        await writeFile(join(dir, "alternatives", "outside.md"), "# Outside\n\nNot in the folder.\n");
        const current = join(dir, "alternatives", "current");
        await symlink(join(dir, "alternatives", "outside.md"), current);
        await symlink(current, join(dir, "docs", "alt.md"));
        await age(join(dir, "docs"));
        // The operations can leave no document to read (all binary, removed or ignored): both runs must then refuse
        // the folder alike.
        const outcome = async (more: Partial<FolderIndexOptions> = {}) => {
          try {
            return { stats: await refresh(more) };
          } catch (error) {
            if (!RagsynthError.isInstance(error) || error.code !== "document_read") throw error;
            return { refused: error.message };
          }
        };
        const both = async () => {
          const remembered = await outcome();
          await rm(join(dir, "full", LISTING_SNAPSHOT_FILE), { force: true });
          const full = await outcome({ cacheDir: "full" });
          expect(full.stats?.remembered).toBeUndefined();
          expect(remembered.refused).toEqual(full.refused);
          if (remembered.stats === undefined || full.stats === undefined) {
            expect(remembered.refused).toMatch(/^No documents to read in docs/);
            used.refused++;
            return;
          }
          expect(comparable(remembered.stats)).toEqual(comparable(full.stats));
          if (remembered.stats.remembered) used.remembered++;
          if (remembered.stats.remembered?.relisted) used.relisted++;
        };
        await both();
        await both();
        for (const step of operations) {
          const name = names[step.file % names.length] as string;
          const path = join(dir, "docs", name);
          if (step.kind === "repoint") {
            await rm(current);
            await symlink(step.file === 8 ? join(dir, "alternatives", "outside.md") : path, current);
          } else if (step.kind === "link") {
            const link = join(dir, "docs", `link-${step.file}.md`);
            // A link to a file not there (yet) is broken: lstat, not exists, tells it is there.
            if (lstatSync(link, { throwIfNoEntry: false })) continue;
            await symlink(path, link);
            await age(join(dir, "docs"));
          } else if (step.kind === "edit") await put(name, `# ${name}\n\n${step.text}\n`);
          else if (step.kind === "binary") await put(name, "\u0000\u0001binary\u0000");
          else if (step.kind === "ignore") await put(".gitignore", `${name}\n`);
          else if (!existsSync(path)) continue;
          else if (step.kind === "touch") await age(path);
          else if (step.kind === "flip") {
            const text = await readFile(path, "latin1");
            await writeFile(
              path,
              text.replace(/[a-z]/g, (letter) => letter.toUpperCase()).replace(/[A-Z]$/, "x"),
            );
            await age(path);
          } else {
            await rm(path);
            await age(...foldersUp(dirname(path)));
          }
          await both();
        }
      }),
      { numRuns: 40 },
    );
    expect(used.remembered).toBeGreaterThan(10);
    expect(used.relisted).toBeGreaterThan(5);
  }, 60_000);
});

/** A run's stats without what differs between two runs of the same listing (where, how long, how it was listed). */
function comparable(stats: FolderIndexStats) {
  const { cacheDir: _cacheDir, durationMs: _durationMs, remembered: _remembered, ...rest } = stats;
  return rest;
}
