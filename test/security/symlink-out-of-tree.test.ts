// Issue 25, row 7: a symbolic link inside the documents folder that leads to a file outside it
// (`ln -s ~/creds.txt docs/leak.md`) was indexed and quoted. It must be passed over, counted, and never quoted.
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readDocuments } from "../../src/reader/read-documents.js";
import { runCli } from "../cli/run-cli.js";

const MARKER = "CREDS-MARKER-7f3a9c-never-indexed";

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "ragsynth-row7-"));
  await mkdir(join(home, "docs", "sub"), { recursive: true });
  await mkdir(join(home, "secret"));
  await writeFile(join(home, "secret", "creds.txt"), `password token ${MARKER}\n`);
  await writeFile(join(home, "secret", "more.md"), `password token ${MARKER} in a folder\n`);
  await writeFile(join(home, "docs", "guide.md"), "# Guide\n\nThe password token is rotated every week.\n");
  await symlink(join(home, "secret", "creds.txt"), join(home, "docs", "leak.md"));
  await symlink(join(home, "secret"), join(home, "docs", "sub", "outside"), "dir");
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe("issue 25 row 7: symbolic links out of the documents folder", () => {
  it("are not read by readDocuments, file and folder alike, and each is recorded outside_roots", async () => {
    const { documents, skipped } = await readDocuments([join(home, "docs")]);
    expect(documents.map((document) => document.metadata.file_name)).toEqual(["guide.md"]);
    expect(documents.some((document) => document.text.includes(MARKER))).toBe(false);
    expect(skipped.map(({ path, code }) => [path.slice(home.length), code])).toEqual([
      ["/docs/leak.md", "outside_roots"],
      ["/docs/sub/outside", "outside_roots"],
    ]);
  });

  it("are followed with followSymlinks, as asked, each real file read once", async () => {
    const { documents, skipped } = await readDocuments([join(home, "docs")], { followSymlinks: true });
    expect(documents.map((document) => document.id.slice(home.length))).toEqual([
      "/docs/guide.md",
      "/docs/leak.md",
      "/docs/sub/outside/more.md",
    ]);
    expect(skipped.map(({ path, code }) => [path.slice(home.length), code])).toEqual([
      ["/docs/sub/outside/creds.txt", "duplicate"],
    ]);
  });

  it("are neither indexed nor quoted by ask, and are counted", async () => {
    const result = await runCli(["ask", "docs", "--json", "--query", "What is the password token?"], {
      cwd: home,
    });
    expect(result.stderr).not.toContain(MARKER);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(MARKER);
    const output = JSON.parse(result.stdout) as {
      sources: { file: string }[];
      index: {
        files: number;
        skipped: { path: string; code: string }[];
        skippedCounts: Record<string, number>;
      };
    };
    expect(output.sources.map((source) => source.file)).toEqual(["docs/guide.md"]);
    expect(output.index.files).toBe(1);
    expect(output.index.skippedCounts).toEqual({ outside_roots: 2 });
    expect(output.index.skipped.map((entry) => entry.path)).toEqual(["docs/leak.md", "docs/sub/outside"]);
  });
});
