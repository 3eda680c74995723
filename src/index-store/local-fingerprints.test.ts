import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TextNode } from "../schema/text-node.js";
import type { StoredSource } from "../store/index-store.js";
import { LOCAL_FINGERPRINTS_FILE, LocalFingerprints } from "./local-fingerprints.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-local-fingerprints-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HASH = "a".repeat(64);
const file = {
  path: "docs/a.md",
  size: 12,
  lastModifiedAt: "2026-01-02T00:00:00.000Z",
  reader: "markdown@1",
};
const stored: StoredSource = {
  id: "docs/a.md",
  contentHash: "text",
  size: 12,
  lastModifiedAt: "2026-01-01T00:00:00.000Z",
  reader: "markdown@1",
  bytesHash: HASH,
  chunkCount: 1,
};
const listed = new TextNode({
  id: file.path,
  text: "",
  metadata: { file_size: file.size, last_modified_at: file.lastModifiedAt, reader: file.reader },
});

describe("this machine's fingerprints of a shared store's files", () => {
  it("know a file as it was found, while the store's row keeps the bytes and reader it was found to hold", () => {
    const first = new LocalFingerprints(dir);
    expect(first.knows(file, stored)).toBe(false);
    first.note(listed, HASH);
    first.save();
    const next = new LocalFingerprints(dir);
    expect(next.knows(file, stored)).toBe(true);
    // The file changed here (another time or size), or the store's row did (other bytes, another reader).
    expect(next.knows({ ...file, lastModifiedAt: "2026-01-03T00:00:00.000Z" }, stored)).toBe(false);
    expect(next.knows({ ...file, size: 13 }, stored)).toBe(false);
    expect(next.knows(file, { ...stored, bytesHash: "b".repeat(64) })).toBe(false);
    expect(next.knows(file, { ...stored, reader: "text@6" })).toBe(false);
    expect(next.knows(file, undefined)).toBe(false);
    expect(next.knows({ ...file, reader: "text@6" }, { ...stored, reader: "text@6" })).toBe(false);
    // Only what a run used or found is kept: an unused entry goes.
    new LocalFingerprints(dir).save();
    expect(new LocalFingerprints(dir).knows(file, stored)).toBe(false);
  });

  it("keep nothing without a folder (a store on this machine records its own times)", async () => {
    const none = new LocalFingerprints(undefined);
    none.note(listed, HASH);
    none.save();
    expect(none.knows(file, stored)).toBe(false);
  });

  it("are untrusted: a damaged or foreign file gives none, and a malformed entry is left out", async () => {
    const path = join(dir, LOCAL_FINGERPRINTS_FILE);
    const entry = { size: 12, lastModifiedAt: file.lastModifiedAt, reader: file.reader, bytesHash: HASH };
    for (const text of ["{", "[]", JSON.stringify({ format: 2, files: { [file.path]: entry } })]) {
      await writeFile(path, text);
      expect(new LocalFingerprints(dir).knows(file, stored)).toBe(false);
    }
    await writeFile(
      path,
      JSON.stringify({
        format: 1,
        files: {
          [file.path]: entry,
          "docs/short.md": { ...entry, bytesHash: "abc" },
          "docs/upper.md": { ...entry, bytesHash: HASH.toUpperCase() },
          "docs/size.md": { ...entry, size: -1 },
          "docs/time.md": { ...entry, lastModifiedAt: 5 },
        },
      }),
    );
    const loaded = new LocalFingerprints(dir);
    for (const path of ["docs/short.md", "docs/upper.md", "docs/size.md", "docs/time.md"])
      expect(loaded.knows({ ...file, path }, { ...stored, id: path, bytesHash: HASH.toUpperCase() })).toBe(
        false,
      );
    expect(loaded.knows(file, stored)).toBe(true);
  });
});
