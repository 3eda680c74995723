import { describe, expect, it } from "vitest";
import { docxReader } from "./docx.js";
import { brokenLines, listItem, makeDocx, paragraph, table } from "./docx-bytes.test.util.js";
import { DEFAULT_READER_LIMITS, type ReaderLimits, type ReaderSkipCode, ReaderSkipError } from "./types.js";

async function read(bytes: Uint8Array, limits: ReaderLimits = DEFAULT_READER_LIMITS) {
  return docxReader.read({ bytes, path: "report.docx", limits });
}

async function skipOf(
  bytes: Uint8Array,
  limits?: ReaderLimits,
): Promise<{ code: ReaderSkipCode; message: string }> {
  try {
    await read(bytes, limits);
  } catch (error) {
    if (ReaderSkipError.isInstance(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected the DOCX to be skipped, but it was read");
}

describe("docxReader", () => {
  it("reads headings by their Heading styles, paragraphs, list items and table rows, and the title", async () => {
    const body = [
      paragraph("Quarterly report", "Heading1"),
      paragraph("Sales rose & costs fell."),
      paragraph("Regions", "Heading2"),
      listItem("North grew"),
      listItem("South held", 1),
      table([
        ["Region", "Sales"],
        ["North", "120"],
      ]),
      paragraph("Closing words."),
    ].join("");
    const result = await read(makeDocx({ body, title: "Q3 <draft>" }));
    expect(result.blocks).toEqual([
      { kind: "heading", text: "Quarterly report", depth: 1 },
      { kind: "paragraph", text: "Sales rose & costs fell." },
      { kind: "heading", text: "Regions", depth: 2 },
      { kind: "list_item", text: "North grew" },
      { kind: "list_item", text: "South held" },
      { kind: "table_row", text: "Region | Sales" },
      { kind: "table_row", text: "North | 120" },
      { kind: "paragraph", text: "Closing words." },
    ]);
    expect(result.metadata).toEqual({ title: "Q3 <draft>" });
  });

  it("reads paragraphs in a code style as code blocks, a line each, and other styles as prose", async () => {
    const body = [
      paragraph("Tell argparse to treat the input as an integer:"),
      // pandoc writes a code block as one "Source Code" paragraph with its lines joined by breaks.
      brokenLines(["import argparse", 'parser.add_argument("square", type=int)'], "SourceCode"),
      paragraph("Run it:"),
      // Word keeps preformatted text as consecutive "HTML Preformatted" paragraphs, one a line.
      paragraph("$ python3 prog.py 4", "HTMLPreformatted"),
      paragraph("16", "HTMLPreformatted"),
      brokenLines(["Not code,", "a poem"], "Heading9"),
    ].join("");
    const { blocks } = await read(makeDocx({ body }));
    expect(blocks.map(({ kind, text }) => ({ kind, text }))).toEqual([
      { kind: "paragraph", text: "Tell argparse to treat the input as an integer:" },
      { kind: "code", text: 'import argparse\nparser.add_argument("square", type=int)' },
      { kind: "paragraph", text: "Run it:" },
      { kind: "code", text: "$ python3 prog.py 4\n16" },
      // A paragraph in another style stays prose, as before (its break still separates its lines).
      { kind: "paragraph", text: "Not code," },
      { kind: "paragraph", text: "a poem" },
    ]);
  });

  it("skips a zip bomb by its central directory before extracting anything (default limits)", async () => {
    const bomb = new Uint8Array(20 * 1024 * 1024); // 20 MB of zeros deflate to ~20 KB: a 1,000:1 ratio
    const bytes = makeDocx({ body: paragraph("Hi"), extraParts: { "word/media/image1.bin": bomb } });
    expect(bytes.byteLength).toBeLessThan(100_000);
    const skip = await skipOf(bytes);
    expect(skip.code).toBe("too_large");
    expect(skip.message).toMatch(/maxCompressionRatio/);
  });

  it("skips a DOCX whose parts expand past maxDecompressedBytes", async () => {
    const random = new Uint8Array(300_000).map((_, index) => (index * 2654435761) >>> 24);
    const bytes = makeDocx({ body: paragraph("Hi"), extraParts: { "word/media/noise.bin": random } });
    expect((await read(bytes)).blocks).toHaveLength(1);
    const small = { ...DEFAULT_READER_LIMITS, maxDecompressedBytes: 200_000 };
    expect((await skipOf(bytes, small)).code).toBe("too_large");
  });

  it("catches a part that inflates past the size it declares (a lying zip), without trusting the header", async () => {
    const bytes = makeDocx({
      body: paragraph("Hi"),
      extraParts: { "word/media/big.bin": new Uint8Array(2_000_000) },
    });
    // Rewrite big.bin's declared uncompressed size, in its local header and its central directory entry, to 100.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const name = new TextEncoder().encode("word/media/big.bin");
    let patched = 0;
    for (let at = 0; at + 46 < bytes.byteLength; at++) {
      const signature = view.getUint32(at, true);
      const nameAt = signature === 0x04034b50 ? at + 30 : signature === 0x02014b50 ? at + 46 : -1;
      if (nameAt === -1 || !name.every((byte, index) => bytes[nameAt + index] === byte)) continue;
      view.setUint32(signature === 0x04034b50 ? at + 22 : at + 24, 100, true);
      patched++;
    }
    expect(patched).toBe(2);
    const skip = await skipOf(bytes);
    expect(skip.code).toBe("corrupt");
    expect(skip.message).toMatch(/big\.bin expands past the 100 bytes it declares/);
  });

  it("reads a DOCX nested past limits.maxDepth as flat paragraphs instead of overflowing mammoth's stack", async () => {
    const depth = 50_000; // tables in tables: mammoth's recursive walk overflows the stack on this
    const nested =
      "<w:tbl><w:tr><w:tc>".repeat(depth) +
      paragraph("Deep & inside") +
      "</w:tc></w:tr></w:tbl>".repeat(depth);
    const bytes = makeDocx({ body: paragraph("Before.") + nested + paragraph("After.") });
    // Repeated markup compresses far past the default 100:1, which would skip the file before its depth counts.
    const limits = { ...DEFAULT_READER_LIMITS, maxCompressionRatio: 10_000 };
    const result = await read(bytes, limits);
    expect(result.blocks).toEqual([
      { kind: "paragraph", text: "Before." },
      { kind: "paragraph", text: "Deep & inside" },
      { kind: "paragraph", text: "After." },
    ]);
    expect(result.metadata).toMatchObject({ flattened: "nesting deeper than 256" });
    expect((await skipOf(bytes)).code).toBe("too_large");
  });

  it("skips a truncated DOCX as corrupt", async () => {
    const bytes = makeDocx({ body: paragraph("Some text") });
    expect((await skipOf(bytes.slice(0, Math.floor(bytes.length / 2)))).code).toBe("corrupt");
  });

  it("skips a zip without a document part as corrupt", async () => {
    const { zipSync } = await import("fflate");
    const bytes = zipSync({ "notes.txt": new TextEncoder().encode("not a word document") });
    const skip = await skipOf(bytes);
    expect(skip.code).toBe("corrupt");
  });

  it("skips a password-protected DOCX (an OLE compound file with an EncryptedPackage stream) as encrypted", async () => {
    // The compound file's header and its directory entry naming the stream, as Word writes them.
    const header = new Uint8Array(512);
    header.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const entryName = Buffer.from("EncryptedPackage", "utf16le");
    const bytes = new Uint8Array([...header, ...entryName, ...new Uint8Array(128)]);
    expect((await skipOf(bytes)).code).toBe("encrypted");
    expect((await skipOf(header)).code).toBe("unsupported");
  });
});
