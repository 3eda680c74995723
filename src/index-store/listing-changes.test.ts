import { existsSync } from "node:fs";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { folderIndexSaved, openFolderIndex } from "./folder-index.js";
import { useListingFolder } from "./listing-snapshot.test.util.js";
import { LISTING_CHANGES_FILE, LISTING_SNAPSHOT_FILE } from "./listing-snapshot-file.js";

// The changes file beside a remembered listing (listing-snapshot-file.ts): what an edit changes is written there, read
// with the listing as one, and not used when it is not the listing's or not as written.

const folder = useListingFolder();
const { put, options, id, refresh, threeDocs } = folder;
let dir: string;
beforeEach(() => {
  dir = folder.dir;
});

describe("a remembered listing's changes", () => {
  it("keeps what an edit changes beside the listing, and reads the two as one", async () => {
    await threeDocs();
    await refresh();
    await refresh();
    const listing = join(dir, "cache", LISTING_SNAPSHOT_FILE);
    const changes = join(dir, "cache", LISTING_CHANGES_FILE);
    const written = await readFile(listing, "utf8");
    const { ino } = await stat(listing);
    expect(existsSync(changes)).toBe(false);
    await put("modes.md", "# Modes\n\nThe default response mode is compact. Edited.\n");
    expect((await refresh()).sources.changed).toEqual([id("modes.md")]);
    // The listing is the file written before the edit; the file beside it holds modes.md's entry, with its new time.
    expect(await readFile(listing, "utf8")).toBe(written);
    expect((await stat(listing)).ino).toBe(ino);
    const held = JSON.parse(await readFile(changes, "utf8"));
    const index = JSON.parse(written).files.findIndex((file: unknown[]) => file[1] === id("modes.md"));
    expect(held.files).toEqual([[index, expect.arrayContaining([id("modes.md")])]]);
    expect(held.files[0][1][3]).toBe((await stat(id("modes.md"))).mtimeMs);
    // Read with it, the listing is up to date: nothing listed again, the rows not read.
    const after = await refresh();
    expect(after.remembered).toEqual({ relisted: 0, rowsRead: false });
    expect(after.sources.unchanged).toEqual([id("guide/start.md"), id("modes.md"), id("tree.md")]);
    // A second file edited: its entry joins the first.
    await put("tree.md", "# Tree\n\ntree_summarize builds summaries level by level. Edited.\n");
    expect((await refresh()).sources.changed).toEqual([id("tree.md")]);
    expect(JSON.parse(await readFile(changes, "utf8")).files).toHaveLength(2);
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    // A file added lists the folder in full: the listing is written again whole, and the changes go.
    await put("added.md", "# Added\n\nA new file.\n");
    await refresh();
    await refresh();
    expect(JSON.parse(await readFile(listing, "utf8")).files).toHaveLength(4);
    expect(existsSync(changes)).toBe(false);
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
  });

  it("does not use changes written for another listing, nor changes that are not as written", async () => {
    await threeDocs();
    await writeFile(join(dir, "secret.md"), "# Secret\n\nThe password is hunter2.\n");
    await refresh();
    await refresh();
    const changes = join(dir, "cache", LISTING_CHANGES_FILE);
    await put("modes.md", "# Modes\n\nThe default response mode is compact. Edited once.\n");
    await refresh();
    // The changes of the first edit, kept aside: modes.md at the time of that edit.
    const stale = await readFile(changes, "utf8");
    await put("modes.md", "# Modes\n\nThe default response mode is compact. Edited twice.\n");
    await refresh();
    // The folder listed in full (a file added, after the others: modes.md keeps its place), and its listing written
    // again.
    await put("z-added.md", "# Added\n\nA new file.\n");
    await refresh();
    await refresh();
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    // The old changes put back beside the new listing: another generation, not used (else modes.md would be listed
    // again, its time being the one of the first edit).
    await writeFile(changes, stale);
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    // Changes of this listing's generation that name another file at a place, or a place it does not have, or are
    // not as written: not used either.
    const { format, generation, files } = JSON.parse(
      await readFile(join(dir, "cache", LISTING_SNAPSHOT_FILE), "utf8"),
    );
    const modes = files.findIndex((file: unknown[]) => file[1] === id("modes.md"));
    const entry = files[modes];
    const forged = [
      [modes, [join(dir, "secret.md"), entry[1], entry[2], 1, entry[4]]],
      [modes, [entry[0], id("tree.md"), entry[2], 1, entry[4]]],
      [files.length, [entry[0], entry[1], entry[2], 1, entry[4]]],
      [modes, [entry[0], entry[1], "12", 1, entry[4]]],
    ];
    for (const change of forged) {
      await writeFile(changes, JSON.stringify({ format, generation, sourcesVersion: null, files: [change] }));
      expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    }
    await writeFile(changes, "{ not json");
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
    // The same change as written (modes.md looks edited: time 1) is used: modes.md is listed again.
    await writeFile(
      changes,
      JSON.stringify({
        format,
        generation,
        sourcesVersion: null,
        files: [[modes, [...entry.slice(0, 3), 1, entry[4]]]],
      }),
    );
    expect((await refresh()).remembered).toMatchObject({ relisted: 1 });
    const opened = await openFolderIndex(options());
    expect(opened.index.nodes.map((node) => node.text).join("\n")).not.toContain("hunter2");
    await folderIndexSaved(opened);
    // A folder in its place: not read, and an edit (whose changes cannot be written there) still answers.
    await rm(changes);
    await mkdir(changes);
    await put("tree.md", "# Tree\n\ntree_summarize builds summaries level by level. Edited.\n");
    expect((await refresh()).sources.changed).toEqual([id("tree.md")]);
    expect((await refresh()).remembered).toMatchObject({ relisted: 1 });
    // The folder listed in full: the listing is written again, the folder beside it stays where a file would go.
    await put("z-more.md", "# More\n\nOne more file.\n");
    await refresh();
    await refresh();
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
  });

  it("writes the listing again whole once more than 256 files changed since it was written", async () => {
    const many = Array.from({ length: 260 }, (_, index) => `many/file-${String(index).padStart(3, "0")}.md`);
    for (const name of many) await put(name, `# ${name}\n\nThe text of ${name}.\n`);
    await refresh();
    await refresh();
    const listing = join(dir, "cache", LISTING_SNAPSHOT_FILE);
    const changes = join(dir, "cache", LISTING_CHANGES_FILE);
    const first = JSON.parse(await readFile(listing, "utf8")).generation;
    // Edited 52 at a time (an ask lists up to 64 files again alone): the changes grow to 208, then past 256.
    for (let from = 0; from < 260; from += 52) {
      for (const name of many.slice(from, from + 52)) await put(name, `# ${name}\n\nEdited.\n`);
      const edited = await refresh();
      expect(edited.remembered).toEqual({ relisted: 52, rowsRead: false });
      if (from + 52 <= 256) {
        expect(JSON.parse(await readFile(changes, "utf8")).files).toHaveLength(from + 52);
        expect(JSON.parse(await readFile(listing, "utf8")).generation).toBe(first);
      }
    }
    expect(existsSync(changes)).toBe(false);
    expect(JSON.parse(await readFile(listing, "utf8")).generation).not.toBe(first);
    expect((await refresh()).remembered).toEqual({ relisted: 0, rowsRead: false });
  }, 60_000);
});
