import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getDocumentBlocks } from "./document-blocks.js";
import { type DocumentReader, ReaderSkipError } from "./formats/types.js";
import { readDocuments } from "./read-documents.js";

let root: string;

async function write(relative: string, content: string | Uint8Array): Promise<string> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

const rows = (skipped: { path: string; code: string }[]) =>
  skipped.map(({ path: skippedPath, code }) => [path.relative(root, skippedPath), code]);

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "ragsynth-bad-input-"));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("readDocuments with bad input", () => {
  it("counts a 500 MB file, a link loop, unreadable entries and invalid UTF-8, and reads every other file", async () => {
    await write("docs/good.md", "# Good\n\nThe answer is here.");
    await write("docs/notes.txt", "plain notes");
    // Sparse: 500 MB by its size, no blocks on disk; the walk must decide by the size alone.
    const huge = await write("docs/huge.md", "");
    await truncate(huge, 500 * 1024 * 1024);
    await symlink("loop.md", path.join(root, "docs/loop.md"));
    await symlink(path.join(root, "gone.md"), path.join(root, "docs/dangling.md"));
    execFileSync("mkfifo", [path.join(root, "docs/fifo.txt")]);
    // "Привет" in KOI8-R: neither UTF-8 nor Western European text (Windows-1252).
    await write("docs/koi8.txt", new Uint8Array([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]));
    const { documents, skipped, formats } = await readDocuments([path.join(root, "docs")]);
    expect(documents.map((document) => path.basename(document.id))).toEqual(["good.md", "notes.txt"]);
    expect(formats).toEqual({ markdown: 1, text: 1 });
    expect(rows(skipped)).toEqual([
      ["docs/dangling.md", "unreadable"],
      ["docs/fifo.txt", "not_a_file"],
      ["docs/huge.md", "too_large"],
      ["docs/koi8.txt", "invalid_utf8"],
      ["docs/loop.md", "symlink_loop"],
    ]);
    expect(skipped[2]?.reason).toMatch(/^524288000 bytes is over maxFileBytes \(33554432\)/);
  });

  it("reads a file with an unknown ending as text when it is text, and counts a binary one", async () => {
    await write("docs/config.unknownending", "[core]\nname = ragsynth\n");
    await write("docs/utf16.notes", new Uint8Array([0xff, 0xfe, 0x68, 0, 0x69, 0]));
    const binary = new Uint8Array(20_000).fill(0x41);
    binary[3] = 0;
    await write("docs/blob.bin", binary);
    const { documents, skipped } = await readDocuments([path.join(root, "docs")]);
    expect(
      documents.map((document) => [path.basename(document.id), document.text, document.metadata.format]),
    ).toEqual([
      ["config.unknownending", "[core]\nname = ragsynth", "text"],
      ["utf16.notes", "hi", "text"],
    ]);
    expect(rows(skipped)).toEqual([["docs/blob.bin", "binary"]]);
  });

  it("says what a binary file is when its first bytes name it, and what to do to read what it holds", async () => {
    const { zipSync } = await import("fflate");
    const { default: Database } = await import("better-sqlite3");
    const { gzipSync } = await import("node:zlib");
    const { pngOfSize } = await import("../schema/png.test.util.js");
    // Real files: a zip and a tar of a Markdown file, an SQLite database, Node's own executable, a gzipped PNG.
    await write("docs/inner/a.md", "# A\n\ntext");
    await write("docs/sources.zip", zipSync({ "a.md": new TextEncoder().encode("# A\n\ntext") }));
    execFileSync("tar", [
      "-cf",
      path.join(root, "docs/sources.tarball"),
      "-C",
      path.join(root, "docs"),
      "inner",
    ]);
    const database = new Database(path.join(root, "docs/notes.db"));
    database.exec("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('hello')");
    database.close();
    await write(
      "docs/node.program",
      await import("node:fs/promises").then((fs) => fs.readFile(process.execPath)),
    );
    await write("docs/chart.gz", gzipSync(pngOfSize(4, 4)));
    // Zip packages whose first entry names their format (fflate stores a `mimetype` given level 0, as writers do).
    const bytes = (text: string) => new TextEncoder().encode(text);
    const mimetype = (type: string) => ({
      mimetype: [bytes(type), { level: 0 }] as [Uint8Array, { level: 0 }],
    });
    await write("docs/drawing.pkg", zipSync({ ...mimetype("application/vnd.oasis.opendocument.graphics") }));
    await write(
      "docs/book.pkg",
      zipSync({ ...mimetype("application/epub+zip"), "a.xhtml": bytes("<p>x</p>") }),
    );
    await write("docs/deck.pkg", zipSync({ "ppt/slides/slide1.xml": bytes("<p:sld/>") }));
    await write("docs/lib.pkg", zipSync({ "META-INF/MANIFEST.MF": bytes("Manifest-Version: 1.0\n") }));
    // Sphinx's objects.inv: four lines of text, then zlib data.
    const inventory =
      "# Sphinx inventory version 2\n# Project: X\n# Version: 1\n# The remainder of this file is compressed using zlib.\n";
    const { deflateSync } = await import("node:zlib");
    await write("docs/objects.inv", Buffer.concat([Buffer.from(inventory), deflateSync(Buffer.alloc(64))]));
    const blob = new Uint8Array(64).fill(0x41);
    blob[3] = 0;
    await write("docs/blob.bin", blob);
    const { documents, skipped } = await readDocuments([path.join(root, "docs")], {
      maxFileBytes: 500 * 1024 * 1024,
    });
    expect(documents.map((document) => path.basename(document.id))).toEqual(["a.md"]);
    const reasons = Object.fromEntries(
      skipped.map((skip) => [path.basename(skip.path), [skip.code, skip.reason]]),
    );
    expect(reasons).toEqual({
      "blob.bin": ["binary", "binary file (contains NUL bytes)"],
      "book.pkg": ["binary", "an EPUB book; give it an .epub ending to read it"],
      "deck.pkg": [
        "binary",
        expect.stringMatching(/^an Office file .*give it its ending \(\.docx, \.xlsx or \.pptx\)/),
      ],
      "drawing.pkg": ["binary", "an OpenDocument drawing; export it as PDF to index its text"],
      "lib.pkg": ["binary", "a Java archive (jar), not a document"],
      "chart.gz": ["binary", expect.stringContaining("chart: an image (PNG); give it its ending")],
      "node.program": ["binary", "a program or library (ELF), not a document"],
      "notes.db": ["binary", expect.stringMatching(/^an SQLite database; export what it holds/)],
      "objects.inv": ["binary", expect.stringMatching(/^a Sphinx inventory \(objects\.inv/)],
      "sources.tarball": ["binary", "a tar archive; extract it (tar -xf) and index the folder it makes"],
      "sources.zip": ["binary", "a zip archive; extract it (unzip) and index the folder it makes"],
    });
  });

  it("turns a reader's ReaderSkipError into its code and any other failure into corrupt, and goes on", async () => {
    const failing = (read: DocumentReader["read"]): DocumentReader => ({ format: "x", extensions: [], read });
    await write("docs/locked.pdf", "%PDF-1.7 encrypted");
    await write("docs/broken.pdf", "%PDF-1.7 truncated");
    await write("docs/odd.pdf", "%PDF-1.7 odd");
    await write("docs/blank.pdf", "%PDF-1.7 nothing");
    await write("docs/fine.md", "fine");
    const pdf: DocumentReader = {
      format: "pdf",
      extensions: [".pdf"],
      read: ({ bytes, path: shown }) => {
        const text = new TextDecoder().decode(bytes);
        if (text.includes("encrypted"))
          throw new ReaderSkipError("encrypted", "encrypted PDF (needs a password)");
        if (text.includes("truncated")) throw new TypeError("Invalid XRef stream");
        if (text.includes("odd")) return { blocks: "not a list" } as never;
        if (text.includes("nothing")) return { blocks: [] };
        return { blocks: [{ kind: "paragraph", text: shown }] };
      },
    };
    const { documents, skipped } = await readDocuments([path.join(root, "docs")], {
      readers: { ".pdf": pdf, ".unused": failing(() => ({ blocks: [] })) },
    });
    expect(documents.map((document) => path.basename(document.id))).toEqual(["fine.md"]);
    expect(skipped.map((entry) => [path.basename(entry.path), entry.code, entry.reason])).toEqual([
      ["blank.pdf", "empty", "empty file (no text besides whitespace)"],
      ["broken.pdf", "corrupt", "the pdf reader failed: Invalid XRef stream"],
      ["locked.pdf", "encrypted", "encrypted PDF (needs a password)"],
      ["odd.pdf", "corrupt", expect.stringMatching(/returned no list of blocks/)],
    ]);
  });

  it("gives each document its reader's blocks, their texts joined by blank lines, and the reader's metadata", async () => {
    await write("docs/guide.md", "# Guide\n\n\n\nFirst paragraph\ncontinues.\n\nSecond.\n");
    await write("docs/page.html", "<h1>Title</h1>");
    const html: DocumentReader = {
      format: "html",
      extensions: [".html"],
      read: () => ({
        blocks: [
          { kind: "heading", text: "Title", depth: 1 },
          { kind: "paragraph", text: "Body" },
        ],
        metadata: { title: "Title", bad: { nested: true } as never },
      }),
    };
    const { documents, formats } = await readDocuments([path.join(root, "docs")], { readers: { html } });
    const [guide, page] = documents;
    expect(guide?.text).toBe("Guide\n\nFirst paragraph\ncontinues.\n\nSecond.");
    expect(getDocumentBlocks(guide as never)?.map((block) => block.lines)).toEqual([
      { start: 1, end: 1 },
      { start: 5, end: 6 },
      { start: 8, end: 8 },
    ]);
    expect(page?.text).toBe("Title\n\nBody");
    expect(page?.metadata).toMatchObject({ title: "Title", format: "html", reader: "html@custom" });
    expect(page?.metadata).not.toHaveProperty("bad");
    expect(formats).toEqual({ html: 1, markdown: 1 });
    // Bookkeeping stays out of prompts and embeddings; what the reader found (the title) goes in.
    expect(page?.getContent("llm" as never)).toBe(`file_path: ${page?.id}\ntitle: Title\n\nTitle\n\nBody`);
  });
});
