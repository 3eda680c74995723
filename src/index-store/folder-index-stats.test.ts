import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type FolderIndexStats, indexSummary } from "./folder-index-stats.js";

const stats = (sources: Partial<FolderIndexStats["sources"]>, files: number): FolderIndexStats => ({
  cacheDir: join(resolve("project"), "docs", ".ragsynth"),
  files,
  formats: { markdown: files },
  skipped: [],
  skippedCounts: {},
  chunks: 10,
  embedded: 0,
  reused: 0,
  sources: { added: [], changed: [], unchanged: [], removed: [], ...sources },
  threads: 0,
  durationMs: 310,
});

describe("indexSummary", () => {
  it("names what changed, and leaves out what a first index or an unchanged one makes plain", () => {
    const line = (sources: Partial<FolderIndexStats["sources"]>, files: number) =>
      indexSummary(stats(sources, files), "hashing", resolve("project"));
    expect(line({ added: ["a.md", "b.md"] }, 2)).toMatch(/^Indexed 2 files: 10 chunks, in /);
    expect(line({ unchanged: ["a.md", "b.md"] }, 2)).toMatch(/^Indexed 2 files: /);
    expect(line({ changed: ["a.md"], unchanged: ["b.md"], removed: ["c.md"] }, 2)).toMatch(
      /^Indexed 2 files \(1 changed, 1 unchanged, 1 removed\): /,
    );
    // Every file new and as many gone (the same files named from another folder): both are said.
    expect(line({ added: ["a.md", "b.md"], removed: ["docs/a.md", "docs/b.md"] }, 2)).toMatch(
      /^Indexed 2 files \(2 new, 2 removed\): /,
    );
    expect(line({ added: ["a.md"] }, 2)).toContain("cache docs/.ragsynth · hashing");
    expect(line({ added: ["a.md"] }, 2)).not.toContain("threads");
  });

  it("writes its counts with thousands separators, as the read counts above it are", () => {
    const names = (count: number, prefix: string) =>
      Array.from({ length: count }, (_, i) => `${prefix}${i}.md`);
    const summary = indexSummary(
      {
        ...stats({ unchanged: names(278, "u"), added: names(3678, "a") }, 3956),
        embedded: 1200,
        reused: 2500,
      },
      "hashing",
      resolve("project"),
    );
    expect(summary).toMatch(
      /^Indexed 3,956 files \(278 unchanged, 3,678 new\): 10 chunks, 1,200 embedded, 2,500 reused, in /,
    );
  });

  it("says how long it waited for another build, when it did", () => {
    const summary = indexSummary(
      { ...stats({ changed: ["a.md"] }, 1), waitedMs: 250 },
      "hashing",
      resolve("project"),
    );
    expect(summary).toMatch(/: 10 chunks, in 310 ms, 250 ms of it waiting for another build · cache /);
    expect(indexSummary(stats({ changed: ["a.md"] }, 1), "hashing", resolve("project"))).not.toContain(
      "waiting",
    );
  });

  it("says how many worker threads split the files, when any did", () => {
    const summary = indexSummary(
      { ...stats({ added: ["a.md"] }, 1), threads: 2 },
      "hashing",
      resolve("project"),
    );
    expect(summary).toMatch(
      /^Indexed 1 file: 10 chunks, in 310 ms \(parsed and split in 2 threads\) · cache /,
    );
    // One thread, the default on 2 or 3 cores.
    expect(
      indexSummary({ ...stats({ added: ["a.md"] }, 1), threads: 1 }, "hashing", resolve("project")),
    ).toContain("(parsed and split in 1 thread) · cache ");
  });
});
