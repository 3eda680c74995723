import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { MetadataMode } from "../schema/text-node.js";
import { READERS_VERSION } from "./formats/registry.js";
import { readDocuments } from "./read-documents.js";

let root: string;
let cwd: string;

async function write(relative: string, content: string | Uint8Array): Promise<void> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "ragsynth-reader-"));
  cwd = process.cwd();
  process.chdir(root);
});

afterEach(async () => {
  process.chdir(cwd);
  await rm(root, { recursive: true, force: true });
});

describe("readDocuments", () => {
  it("cuts a reader's metadata string to 200 characters at a word, so a paragraph-long title leaves chunks room", async () => {
    const heading = Array.from({ length: 120 }, (_, index) => `word${index}`).join(" ");
    await write("docs/long.md", `# ${heading}\n\nThe body.\n`);
    await write("docs/short.md", "# A short title\n\nThe body.\n");
    const { documents } = await readDocuments(["docs/"]);
    const [long, short] = documents;
    const title = long?.metadata.title as string;
    expect(title.length).toBeLessThanOrEqual(200);
    expect(title.endsWith("…")).toBe(true);
    expect(heading.startsWith(title.slice(0, -1))).toBe(true);
    expect(heading.charAt(title.length - 1)).toBe(" "); // cut where a word ends
    expect(short?.metadata.title).toBe("A short title");
    // The heading itself stays whole in the text.
    expect(long?.text).toContain(heading);
  });

  it("reads matching files recursively, sorted, with ids and metadata from the path", async () => {
    await write("docs/b.md", "# B\r\nbee");
    await write("docs/a.txt", "\uFEFFay");
    await write("docs/sub/c.md", "sea");
    const { documents, skipped } = await readDocuments(["docs/"]);
    expect(skipped).toEqual([]);
    expect(documents.map((document) => [document.id, document.text])).toEqual([
      ["docs/a.txt", "ay"],
      ["docs/b.md", "B\n\nbee"],
      ["docs/sub/c.md", "sea"],
    ]);
    const [first] = documents;
    expect(first?.metadata).toMatchObject({ file_path: "docs/a.txt", file_name: "a.txt", file_size: 5 });
    expect(typeof first?.metadata.last_modified_at).toBe("string");
    expect(first?.getContent(MetadataMode.LLM)).toBe("file_path: docs/a.txt\n\nay");
    expect(first?.getContent(MetadataMode.EMBED)).toBe("file_path: docs/a.txt\n\nay");
  });

  it("lists the files skipRead picks with their metadata but without reading them", async () => {
    await write("docs/known.md", "known text");
    // NUL bytes: read, this file would be skipped as binary.
    await write("docs/binary.md", new Uint8Array([0x68, 0x00, 0x69]));
    await write("docs/new.md", "new text");
    const asked: { path: string; size: number; lastModifiedAt: string; reader: string }[] = [];
    const { documents, skipped } = await readDocuments(["docs"], {
      skipRead: (file) => {
        asked.push(file);
        return file.path !== "docs/new.md";
      },
    });
    expect(skipped).toEqual([]);
    expect(documents.map((document) => [document.id, document.text])).toEqual([
      ["docs/binary.md", ""],
      ["docs/known.md", ""],
      ["docs/new.md", "new text"],
    ]);
    expect(documents[1]?.metadata).toMatchObject({ file_path: "docs/known.md", file_size: 10 });
    expect(asked.find((file) => file.path === "docs/known.md")).toEqual({
      path: "docs/known.md",
      size: 10,
      lastModifiedAt: documents[1]?.metadata.last_modified_at,
      reader: `markdown@${READERS_VERSION}`,
    });
  });

  it("gives the same ids on every run", async () => {
    await write("docs/a.md", "one");
    const first = await readDocuments(["docs"]);
    const second = await readDocuments(["./docs"]);
    expect(second.documents.map((document) => document.id)).toEqual(
      first.documents.map((document) => document.id),
    );
  });

  it("reports binary, invalid UTF-8, empty and oversized files instead of dropping them", async () => {
    await write("docs/binary.txt", new Uint8Array([0x68, 0x00, 0x69]));
    // "Привет" in KOI8-R: not UTF-8, and a run too long to be Western European text read as Windows-1252.
    await write("docs/koi8.txt", new Uint8Array([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]));
    await write("docs/blank.md", " \n\n ");
    await write("docs/big.md", "x".repeat(100));
    await write("docs/ok.md", "fine");
    const { documents, skipped } = await readDocuments(["docs"], { maxFileBytes: 50 });
    expect(documents.map((document) => document.id)).toEqual(["docs/ok.md"]);
    expect(skipped.map(({ path, code }) => [path, code])).toEqual([
      ["docs/big.md", "too_large"],
      ["docs/binary.txt", "binary"],
      ["docs/blank.md", "empty"],
      ["docs/koi8.txt", "invalid_utf8"],
    ]);
    expect(skipped[0]?.reason).toMatch(/raise maxFileBytes/);
  });

  it("reports hidden entries, node_modules, images and subfolders without entering them", async () => {
    await write("docs/.git/config.md", "secret");
    await write("docs/.notes.md", "hidden");
    await write("docs/node_modules/pkg/readme.md", "dependency");
    await write("docs/image.png", "png");
    await write("docs/sub/deep.md", "deep");
    await write("docs/top.md", "top");
    const { documents, skipped } = await readDocuments(["docs"], { recursive: false });
    expect(documents.map((document) => document.id)).toEqual(["docs/top.md"]);
    expect(skipped.map(({ path, code }) => [path, code])).toEqual([
      ["docs/.git", "ignored"],
      ["docs/.notes.md", "ignored"],
      ["docs/image.png", "unsupported"],
      ["docs/node_modules", "ignored"],
      ["docs/sub", "not_recursive"],
    ]);
    expect(skipped[3]?.reason).toMatch(/node_modules\/ holds installed npm packages/);
  });

  it("reads explicitly named paths even when hidden or of another ending, and reads each file once", async () => {
    await write("docs/.notes.md", "hidden");
    await write("docs/data.csv", "a,b");
    await write("docs/a.md", "a");
    const { documents } = await readDocuments(["docs/.notes.md", "docs/data.csv", "docs", "docs/a.md"]);
    expect(documents.map((document) => document.id)).toEqual([
      "docs/.notes.md",
      "docs/a.md",
      "docs/data.csv",
    ]);
  });

  it("accepts endings with or without a dot, case-insensitively", async () => {
    await write("docs/A.MD", "upper");
    await write("docs/b.rst", "rst");
    const { documents } = await readDocuments(["docs"], { extensions: ["md", ".RST"] });
    expect(documents.map((document) => document.id)).toEqual(["docs/A.MD", "docs/b.rst"]);
  });

  it("names a symbolic link to a folder that holds it as a loop, and reads the rest", async () => {
    await write("docs/a.md", "a");
    await symlink(path.join(root, "docs"), path.join(root, "docs/loop"), "dir");
    const { documents, skipped } = await readDocuments(["docs"]);
    expect(documents.map((document) => document.id)).toEqual(["docs/a.md"]);
    expect(skipped).toEqual([{ path: "docs/loop", code: "symlink_loop", reason: expect.any(String) }]);
  });

  it.skipIf(process.getuid?.() === 0)("reports a file it may not read", async () => {
    await write("docs/secret.md", "no");
    await chmod(path.join(root, "docs/secret.md"), 0o000);
    const { documents, skipped } = await readDocuments(["docs"]);
    expect(documents).toEqual([]);
    expect(skipped).toEqual([
      { path: "docs/secret.md", code: "unreadable", reason: expect.stringContaining("EACCES") },
    ]);
  });

  it("returns no documents for an empty folder, so the caller can say so", async () => {
    await mkdir(path.join(root, "empty"));
    expect(await readDocuments(["empty"])).toEqual({ documents: [], skipped: [], formats: {} });
  });

  it("throws a document_read error naming every missing path", async () => {
    await write("docs/a.md", "a");
    const error = await readDocuments(["docs", "nope", "missing/x.md"]).catch((caught: unknown) => caught);
    expect(RagsynthError.isInstance(error, "document_read")).toBe(true);
    expect((error as Error).message).toMatch(
      /No file or folder at "nope" \(resolved to .*\), "missing\/x.md"/,
    );
  });

  it("stops when the signal aborts", async () => {
    await write("docs/a.md", "a");
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(readDocuments(["docs"], { signal: controller.signal })).rejects.toThrow("stop");
  });

  it("rejects bad arguments with a typed error", async () => {
    await expect(readDocuments([""])).rejects.toThrow(
      /Expected `paths` to be an array of non-empty path strings/,
    );
    await expect(readDocuments(["."], { extensions: [""] })).rejects.toThrow(/Expected `extensions`/);
  });
});
