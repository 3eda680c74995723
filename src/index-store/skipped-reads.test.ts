import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSkippedReads, SKIPPED_READS_FILE, type SkippedRead, saveSkippedReads } from "./skipped-reads.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-skipped-reads-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const binary: SkippedRead = {
  size: 6,
  lastModifiedAt: "2026-12-03T07:00:00.000Z",
  reader: "text@6",
  code: "binary",
  reason: "binary file (contains NUL bytes)",
};

describe("the skipped reads kept beside an index", () => {
  it("come back as they were saved, and are written only when they change", async () => {
    const reads = new Map([["docs/blob.bin", binary]]);
    saveSkippedReads(dir, reads, new Map());
    expect(loadSkippedReads(dir)).toEqual(reads);
    await writeFile(join(dir, SKIPPED_READS_FILE), "left as it is");
    saveSkippedReads(dir, reads, reads);
    expect(await readFile(join(dir, SKIPPED_READS_FILE), "utf8")).toBe("left as it is");
    // None left: the file goes.
    saveSkippedReads(dir, new Map(), reads);
    await expect(readFile(join(dir, SKIPPED_READS_FILE))).rejects.toThrow(/ENOENT/);
  });

  it("are untrusted: a damaged or foreign file gives none, and a malformed entry is left out", async () => {
    const file = join(dir, SKIPPED_READS_FILE);
    for (const text of ["{", "[]", JSON.stringify({ format: 2, files: { a: binary } })]) {
      await writeFile(file, text);
      expect(loadSkippedReads(dir).size).toBe(0);
    }
    await writeFile(
      file,
      JSON.stringify({
        format: 1,
        files: {
          good: binary,
          // An escape sequence would reach the terminal in `-v`'s list.
          escape: { ...binary, reason: "binary \u001b[2J" },
          // Not decided by the bytes alone: read again.
          unreadable: { ...binary, code: "unreadable" },
          tooLarge: { ...binary, code: "too_large" },
          size: { ...binary, size: -1 },
          time: { ...binary, lastModifiedAt: 5 },
        },
      }),
    );
    expect([...loadSkippedReads(dir).keys()]).toEqual(["good"]);
  });
});
