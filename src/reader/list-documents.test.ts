import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { TextNode } from "../schema/text-node.js";
import type { DocumentReader } from "./formats/types.js";
import { listDocuments } from "./list-documents.js";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "ragsynth-list-"));
  await mkdir(path.join(root, "docs"));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A reader of `.log` files that counts its reads. */
function countingReader(): DocumentReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    format: "log",
    extensions: [".log"],
    reads,
    read: ({ bytes, path: file }) => {
      reads.push(file);
      const text = new TextDecoder().decode(bytes);
      if (text.startsWith("BAD")) throw new Error("not a log");
      return { blocks: [{ kind: "paragraph", text }] };
    },
  };
}

describe("listDocuments", () => {
  it("reads no file's content until asked, one file per read, and counts each outcome once", async () => {
    for (const name of ["a", "b", "c"])
      await writeFile(path.join(root, "docs", `${name}.log`), `${name} happened`);
    await writeFile(path.join(root, "docs", "d.log"), "BAD line");
    await writeFile(path.join(root, "docs", "e.bin"), new Uint8Array([1, 0, 2, 0]));
    const reader = countingReader();
    const listing = await listDocuments([path.join(root, "docs")], { readers: { ".log": reader } });

    expect(reader.reads).toEqual([]);
    expect(listing.documents.map((document) => path.basename(document.id))).toEqual([
      "a.log",
      "b.log",
      "c.log",
      "d.log",
      "e.bin",
    ]);
    expect(listing.documents.every((document) => document.text === "")).toBe(true);
    expect(listing.documents[0]?.metadata).toMatchObject({ file_size: "a happened".length, format: "log" });
    expect(listing.report()).toEqual({ skipped: [], formats: {} });

    const [a, , , d, e] = listing.documents as [TextNode, TextNode, TextNode, TextNode, TextNode];
    const read = await listing.read(a);
    expect(read?.text).toBe("a happened");
    expect(reader.reads.map((file) => path.basename(file))).toEqual(["a.log"]);
    // The listed document keeps no text: holding the listing does not hold what was read.
    expect(a.text).toBe("");
    expect(await listing.read(d)).toBeUndefined();
    expect(await listing.read(e)).toBeUndefined();
    // Read again, a document is counted once.
    expect((await listing.read(a))?.text).toBe("a happened");
    const { skipped, formats } = listing.report();
    expect(formats).toEqual({ log: 1 });
    expect(skipped.map((entry) => [path.basename(entry.path), entry.code])).toEqual([
      ["d.log", "corrupt"],
      ["e.bin", "binary"],
    ]);
  });

  it("returns a document skipRead listed as listed, and reads it when asked to even so, counted once", async () => {
    await writeFile(path.join(root, "docs", "a.log"), "a happened");
    const reader = countingReader();
    const listing = await listDocuments([path.join(root, "docs")], {
      readers: { ".log": reader },
      skipRead: () => true,
    });
    const [a] = listing.documents as [TextNode];
    expect(listing.report().formats).toEqual({ log: 1 });
    expect(await listing.read(a)).toBe(a);
    expect(reader.reads).toEqual([]);
    expect((await listing.read(a, { evenIfKnown: true }))?.text).toBe("a happened");
    expect(reader.reads.map((file) => path.basename(file))).toEqual(["a.log"]);
    expect(listing.report()).toEqual({ skipped: [], formats: { log: 1 } });
  });

  it("lists a path given under the name rootNames gives it, and refuses a name that is not a non-empty string", async () => {
    await mkdir(path.join(root, "docs", "guide"));
    await writeFile(path.join(root, "docs", "guide", "a.md"), "# A\n\nText.\n");
    const docs = path.join(root, "docs");
    const listing = await listDocuments([docs], { rootNames: { [docs]: "manual/docs/" } });
    expect(listing.documents.map((document) => [document.id, document.metadata.file_path])).toEqual([
      ["manual/docs/guide/a.md", "manual/docs/guide/a.md"],
    ]);
    for (const rootNames of [{ [docs]: "" }, { [docs]: 3 }, ["docs"], null]) {
      const error = await listDocuments([docs], { rootNames: rootNames as never }).catch(
        (caught: unknown) => caught,
      );
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).parameter).toBe("rootNames");
    }
  });
});
