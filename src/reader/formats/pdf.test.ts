import { describe, expect, it } from "vitest";
import { pdfReader } from "./pdf.js";
import { makePdf, type PdfPageSpec } from "./pdf-bytes.test.util.js";
import { DEFAULT_READER_LIMITS, type ReaderSkipCode, ReaderSkipError } from "./types.js";

async function read(bytes: Uint8Array) {
  return pdfReader.read({ bytes, path: "doc.pdf", limits: DEFAULT_READER_LIMITS });
}

async function skipCodeOf(bytes: Uint8Array): Promise<ReaderSkipCode | "read"> {
  try {
    await read(bytes);
    return "read";
  } catch (error) {
    if (ReaderSkipError.isInstance(error)) return error.code;
    throw error;
  }
}

/** A body page: a running header, two paragraphs, and a page number at the bottom. */
function bodyPage(pageNumber: number, paragraphs: string[][]): PdfPageSpec {
  const texts: NonNullable<PdfPageSpec["texts"]> = [{ x: 400, y: 760, size: 9, text: "The Widget Manual" }];
  let y = 700;
  for (const lines of paragraphs) {
    for (const line of lines) {
      texts.push({ x: 72, y, size: 11, text: line });
      y -= 13;
    }
    y -= 20;
  }
  texts.push({ x: 300, y: 40, size: 9, text: String(pageNumber) });
  return { texts };
}

describe("pdfReader", () => {
  it("reads text per page with the page number on every block, in reading order", async () => {
    const bytes = makePdf({
      pages: [
        { texts: [{ x: 72, y: 700, size: 11, text: "Alpha paragraph on the first page." }] },
        { texts: [{ x: 72, y: 700, size: 11, text: "Beta paragraph on the second page." }] },
      ],
    });
    const result = await read(bytes);
    expect(result.blocks).toEqual([
      { kind: "paragraph", text: "Alpha paragraph on the first page.", page: 1 },
      { kind: "paragraph", text: "Beta paragraph on the second page.", page: 2 },
    ]);
    expect(result.metadata).toMatchObject({ page_count: 2 });
  });

  it("groups lines into paragraphs by vertical gaps and joins words hyphenated across line ends", async () => {
    const pages = [1, 2, 3].map((pageNumber) =>
      bodyPage(pageNumber, [
        ["The first paragraph is an exam-", "ple of a hyphenated word that", "continues here."],
        ["A second one keeps its well-known compound and the well-", "known one split at a line end."],
      ]),
    );
    const result = await read(makePdf({ pages }));
    const texts = result.blocks.filter((block) => block.page === 2).map((block) => block.text);
    expect(texts).toEqual([
      "The first paragraph is an example of a hyphenated word that continues here.",
      "A second one keeps its well-known compound and the well-known one split at a line end.",
    ]);
  });

  it("drops a running header and page numbers repeated on most pages, and keeps the body", async () => {
    const pages = [1, 2, 3, 4].map((pageNumber) =>
      bodyPage(pageNumber, [[`Body text of page ${pageNumber}.`]]),
    );
    const result = await read(makePdf({ pages }));
    expect(result.blocks.map((block) => [block.page, block.text])).toEqual([
      [1, "Body text of page 1."],
      [2, "Body text of page 2."],
      [3, "Body text of page 3."],
      [4, "Body text of page 4."],
    ]);
  });

  it("drops a running header mirrored on facing pages (page number left on even pages, right on odd)", async () => {
    // Seven pages: the even pages' header alone is on 3, fewer than half; the two sides together make it running.
    const bodies = ["Alpha.", "Beta.", "Gamma.", "Delta.", "Epsilon.", "Zeta.", "Eta."];
    const pages = bodies.map((body, index) => {
      const pageNumber = index + 1;
      const header =
        pageNumber % 2 === 0 ? `${pageNumber} Widget Manual 2.1` : `Widget Manual 2.1 ${pageNumber}`;
      return {
        texts: [
          { x: 72, y: 760, size: 9, text: header },
          { x: 72, y: 700, size: 11, text: body },
        ],
      };
    });
    const result = await read(makePdf({ pages }));
    expect(result.blocks.map((block) => block.text)).toEqual(bodies);
  });

  it("keeps an edge line that appears on only one page", async () => {
    const pages = [1, 2, 3].map((pageNumber) => bodyPage(pageNumber, [["Body."]]));
    pages[1]?.texts?.push({ x: 72, y: 775, size: 9, text: "Draft notice only here" });
    const result = await read(makePdf({ pages }));
    expect(result.blocks.map((block) => block.text)).toContain("Draft notice only here");
  });

  it("makes larger type a heading with levels by size, bullets list items and monospaced lines code", async () => {
    const bytes = makePdf({
      pages: [
        {
          texts: [
            { x: 72, y: 740, size: 20, text: "1. Installing" },
            { x: 72, y: 700, size: 11, text: "Run the installer and check these:" },
            { x: 72, y: 670, size: 15, text: "1.1 Requirements" },
            { x: 72, y: 640, size: 11, text: "• A supported system" },
            { x: 72, y: 620, size: 11, text: "• Enough disk space for the files" },
            { x: 72, y: 590, size: 10, text: "npm install widget", font: "courier" },
            { x: 84, y: 578, size: 10, text: "--save", font: "courier" },
            { x: 72, y: 550, size: 11, text: "That is all there is to it, more or less." },
          ],
        },
      ],
    });
    const result = await read(bytes);
    expect(result.blocks).toEqual([
      { kind: "heading", text: "1. Installing", depth: 1, page: 1 },
      { kind: "paragraph", text: "Run the installer and check these:", page: 1 },
      { kind: "heading", text: "1.1 Requirements", depth: 2, page: 1 },
      { kind: "list_item", text: "A supported system", page: 1 },
      { kind: "list_item", text: "Enough disk space for the files", page: 1 },
      { kind: "code", text: "npm install widget\n  --save", page: 1 },
      { kind: "paragraph", text: "That is all there is to it, more or less.", page: 1 },
    ]);
  });

  it("skips a password-protected PDF as encrypted", async () => {
    const bytes = makePdf({
      pages: [{ texts: [{ x: 72, y: 700, size: 11, text: "Secret" }] }],
      encrypted: true,
    });
    expect(await skipCodeOf(bytes)).toBe("encrypted");
  });

  it("skips a truncated PDF as corrupt, naming the cause", async () => {
    const whole = makePdf({ pages: [bodyPage(1, [["Some text."]]), bodyPage(2, [["More text."]])] });
    expect(await skipCodeOf(whole)).toBe("read");
    const truncated = whole.slice(0, Math.floor(whole.length * 0.7));
    await expect(read(truncated)).rejects.toThrow(/truncated/);
    expect(await skipCodeOf(truncated)).toBe("corrupt");
  });

  it("skips bytes that are not a PDF at all as corrupt", async () => {
    expect(await skipCodeOf(new TextEncoder().encode("just some text\n%%EOF\n"))).toBe("corrupt");
  });

  it("skips a PDF whose pages are only images (scanned) as no_text_layer", async () => {
    const bytes = makePdf({ pages: [{ image: true }, { image: true }] });
    expect(await skipCodeOf(bytes)).toBe("no_text_layer");
  });

  it("skips a PDF whose compressed streams expand past maxDecompressedBytes (a decompression bomb)", async () => {
    const texts = [{ x: 72, y: 700, size: 11, text: "Padded page." }];
    const bytes = makePdf({ pages: [{ texts }], flatePadding: 3 * 1024 * 1024 });
    expect(bytes.byteLength).toBeLessThan(20_000);
    expect((await read(bytes)).blocks).toEqual([{ kind: "paragraph", text: "Padded page.", page: 1 }]);
    const limits = { ...DEFAULT_READER_LIMITS, maxDecompressedBytes: 1024 * 1024 };
    await expect(pdfReader.read({ bytes, path: "doc.pdf", limits })).rejects.toMatchObject({
      code: "too_large",
      message: expect.stringMatching(/expand past 1\.0 MB/),
    });
  });

  it("reads a PDF where only some pages lack text, and counts those pages", async () => {
    const bytes = makePdf({
      pages: [{ image: true }, { texts: [{ x: 72, y: 700, size: 11, text: "Text here." }] }],
    });
    const result = await read(bytes);
    expect(result.blocks).toEqual([{ kind: "paragraph", text: "Text here.", page: 2 }]);
    expect(result.metadata).toMatchObject({ page_count: 2, pages_without_text: 1 });
  });

  it("leaves the caller's bytes usable after reading", async () => {
    const bytes = makePdf({ pages: [{ texts: [{ x: 72, y: 700, size: 11, text: "Once." }] }] });
    await read(bytes);
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect((await read(bytes)).blocks).toHaveLength(1);
  });

  it("stops when its signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const bytes = makePdf({ pages: [{ texts: [{ x: 72, y: 700, size: 11, text: "Never read." }] }] });
    await expect(
      pdfReader.read({ bytes, path: "doc.pdf", limits: DEFAULT_READER_LIMITS, signal: controller.signal }),
    ).rejects.toThrow(/abort/i);
  });
});
