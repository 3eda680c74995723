import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../store/temp-dir.test.util.js";
import { namesAsStored } from "./stored-names.js";

const tempDir = useTempDirs("stored-names");

/** `files` (paths below `root`, forward slashes) written with some text. */
function write(root: string, files: readonly string[]): void {
  for (const file of files) {
    const path = join(root, ...file.split("/"));
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "text\n");
  }
}

const ids = (...names: string[]) => new Map(names.map((name) => [name, {}]));

describe("namesAsStored", () => {
  it("keeps the working folder's names when the store holds the files by them (or holds nothing)", () => {
    const dir = tempDir();
    write(dir, ["docs/a.md"]);
    const roots = [{ location: join(dir, "docs"), name: "docs" }];
    expect(namesAsStored(roots, ids("docs/a.md"), dir)).toEqual({
      names: { [join(dir, "docs")]: "docs" },
      from: dir,
    });
    expect(namesAsStored(roots, ids(), dir).names).toEqual({ [join(dir, "docs")]: "docs" });
  });

  it("names a folder asked from inside (`.`) or by its absolute path as the store does, from the store's folder", () => {
    const dir = tempDir();
    write(dir, ["docs/a.md", "docs/guide/b.md"]);
    const docs = join(dir, "docs");
    const stored = ids("docs/a.md", "docs/guide/b.md");
    expect(namesAsStored([{ location: docs, name: "." }], stored, docs)).toEqual({
      names: { [docs]: "docs" },
      from: dir,
    });
    // A subfolder asked from inside its parent: the shortest trailing part the store holds files under.
    const guide = join(docs, "guide");
    expect(namesAsStored([{ location: guide, name: "guide" }], stored, docs)).toEqual({
      names: { [guide]: "docs/guide" },
      from: dir,
    });
  });

  it("keeps `.` for a folder holding a subfolder of its own name, when the store named its files from inside", () => {
    const dir = tempDir();
    const docs = join(dir, "docs");
    write(docs, ["docs/a.md", "b.md"]);
    // Stored from inside: docs/a.md is docs/docs/a.md; a guess of `docs` for `.` would name it docs/docs/a.md.
    expect(namesAsStored([{ location: docs, name: "." }], ids("b.md", "docs/a.md"), docs)).toEqual({
      names: { [docs]: "." },
      from: docs,
    });
  });

  it("keeps the working folder's names when the stored names lead to no file, or the roots disagree on their folder", () => {
    const dir = tempDir();
    write(dir, ["one/docs/a.md", "two/notes/b.md"]);
    const docs = join(dir, "one", "docs");
    const notes = join(dir, "two", "notes");
    // Stored names of files that are not below the folder (moved, or another copy).
    expect(
      namesAsStored([{ location: docs, name: "." }], ids("docs/gone.md", "docs/old.md"), docs).names,
    ).toEqual({
      [docs]: ".",
    });
    // docs held from one/, notes from two/: no one folder for both names, so neither is renamed.
    const roots = [
      { location: docs, name: "one/docs" },
      { location: notes, name: "two/notes" },
    ];
    expect(namesAsStored(roots, ids("docs/a.md", "notes/b.md"), dir)).toEqual({
      names: { [docs]: "one/docs", [notes]: "two/notes" },
      from: dir,
    });
  });
});
