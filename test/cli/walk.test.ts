import { execFileSync } from "node:child_process";
import { mkdir, readFile, stat, symlink, truncate, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli } from "./run-cli.js";

let dir: string;
let docs: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, docs, cleanup } = await copyExampleDocs());
});
afterEach(() => cleanup());

describe("ragsynth index: the walk", () => {
  it("counts bad input by reason, lists it with -v and in --json, and indexes every other file", async () => {
    // Sparse: 500 MB by its size, no blocks on disk.
    await writeFile(join(docs, "huge.md"), "");
    await truncate(join(docs, "huge.md"), 500 * 1024 * 1024);
    await symlink("loop.md", join(docs, "loop.md"));
    execFileSync("mkfifo", [join(docs, "pipe.txt")]);
    await writeFile(join(docs, "koi8.txt"), Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4])); // "Привет" in KOI8-R
    await writeFile(join(docs, "photo.bin"), Buffer.from([0x89, 0x50, 0, 1, 2]));
    await writeFile(join(docs, "settings.xyz"), "cache dir is .ragsynth\n");

    const human = await runCli(["index", docs]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toBe(
      "ragsynth: read 7 files (markdown 5, text 2) · skipped 5 (binary 1, invalid_utf8 1, not_a_file 1, " +
        "symlink_loop 1, too_large 1) (-v lists them)\n",
    );
    expect(human.stdout).toMatch(/^Indexed 7 files/);

    const verbose = await runCli(["index", docs, "-v"]);
    expect(verbose.stderr).toMatch(
      /^ragsynth: skipped .*huge\.md \(too_large\): 524288000 bytes is over the 32 MiB limit/m,
    );
    expect(verbose.stderr).toMatch(/^ragsynth: skipped .*loop\.md \(symlink_loop\): symbolic link loop/m);

    // --read-as maps an ending onto a built-in reader: settings.xyz (no reader of its own) counts as Markdown now.
    const json = await runCli(["index", docs, "--json", "--read-as", ".xyz=markdown"]);
    const output = JSON.parse(json.stdout);
    expect(output.files).toBe(7);
    expect(output.formats).toEqual({ markdown: 6, text: 1 });
    expect(output.skippedCounts).toEqual({
      binary: 1,
      invalid_utf8: 1,
      not_a_file: 1,
      symlink_loop: 1,
      too_large: 1,
    });
    expect(output.skipped.map((entry: { path: string }) => entry.path.split("/").pop())).toEqual([
      "huge.md",
      "koi8.txt",
      "loop.md",
      "photo.bin",
      "pipe.txt",
    ]);
  });

  it("takes --include, --exclude, --no-ignore, --hidden and --follow-symlinks", async () => {
    await mkdir(join(docs, "node_modules", "pkg"), { recursive: true });
    await writeFile(join(docs, "node_modules", "pkg", "readme.md"), "A dependency's readme.\n");
    await writeFile(join(docs, ".hidden.md"), "A hidden note.\n");
    await mkdir(join(dir, "outside"));
    await writeFile(join(dir, "outside", "linked.md"), "A linked note.\n");
    await symlink(join(dir, "outside"), join(docs, "linked"), "dir");
    const files = async (...flags: string[]) => {
      const result = await runCli(["index", docs, "--json", "--rebuild", ...flags]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { files: number; skippedCounts: Record<string, number> };
    };
    expect(await files()).toMatchObject({ files: 6, skippedCounts: { ignored: 2, outside_roots: 1 } });
    expect(await files("--exclude", "*.txt", "--exclude", "cli.md")).toMatchObject({ files: 4 });
    expect(await files("--include", "**/overview.md")).toMatchObject({ files: 1 });
    expect(await files("--no-ignore")).toMatchObject({ files: 7 });
    expect(await files("--hidden")).toMatchObject({ files: 7 });
    expect(await files("--follow-symlinks")).toMatchObject({ files: 7, skippedCounts: { ignored: 2 } });
    const empty = await runCli(["index", docs, "--include", ""]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--include needs a glob pattern/);
    // Seven CLI runs: more than the default 30 s on a busy machine.
  }, 180_000);

  it("reads a file again when the reader of its ending changed, though its size and time did not", async () => {
    const first = await runCli(["index", docs, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    // Same size and time, new words: only a file that is read again shows them.
    const file = join(docs, "cli.md");
    const { mtime } = await stat(file);
    const before = await readFile(file, "utf8");
    await writeFile(file, before.replace("ragsynth", "RAGSYNTH"));
    await utimes(file, mtime, mtime);
    const unchanged = JSON.parse((await runCli(["index", docs, "--json"])).stdout);
    expect(unchanged.sources.unchanged).toHaveLength(6);

    // As if an older ragsynth (another reader version) had indexed cli.md.
    const indexFile = join(docs, ".ragsynth", "ragsynth-index.sqlite");
    const db = new Database(indexFile);
    const changed = db
      .prepare("UPDATE sources SET reader = 'markdown@0' WHERE id LIKE '%cli.md'")
      .run().changes;
    db.close();
    expect(changed).toBe(1);

    const again = JSON.parse((await runCli(["index", docs, "--json"])).stdout);
    expect(again.sources.changed).toEqual([expect.stringMatching(/cli\.md$/)]);
    expect(again.sources.unchanged).toHaveLength(5);
  });
});
