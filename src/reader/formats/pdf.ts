import {
  dropRunningLines,
  itemsToLines,
  linesToBlocks,
  type PdfLine,
  type PdfTextItem,
} from "./pdf-layout.js";
import { checkPdfStreams } from "./pdf-stream-guard.js";
import { type DocumentReader, type ReaderInput, ReaderSkipError, type ReadFileResult } from "./types.js";

// PDF.js through unpdf: unpdf ships PDF.js's serverless build as one file with no dependencies and no worker
// (pdfjs-dist itself pulls in @napi-rs/canvas, a native binary, and needs a worker set up in Node). It is
// loaded on the first PDF only, so reading a folder of Markdown never pays for its 1.6 MB.
type PdfJsDocument = Awaited<ReturnType<typeof import("unpdf")["getDocumentProxy"]>>;

/** PDF.js's text item, reduced to the fields read here (its marked-content items have no `str`). */
interface PdfJsTextItem {
  str?: string;
  transform?: number[];
  width?: number;
}

function errorName(error: unknown): string {
  return typeof error === "object" && error !== null && "name" in error ? String(error.name) : "";
}

async function openDocument(bytes: Uint8Array, path: string): Promise<PdfJsDocument> {
  const { getDocumentProxy } = await import("unpdf");
  try {
    // A copy: PDF.js may take over (detach) the buffer it is given, and the caller's bytes stay the caller's.
    return await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, isEvalSupported: false });
  } catch (error) {
    if (errorName(error) === "PasswordException") {
      throw new ReaderSkipError(
        "encrypted",
        `${path}: the PDF is encrypted and needs a password to open. Save a copy without the password to read it.`,
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new ReaderSkipError("corrupt", `${path}: not a readable PDF (${reason}).`);
  }
}

/** A file cut short loses its trailer; PDF.js then rebuilds what it can and says nothing, so it is checked here. */
function endsWithEofMarker(bytes: Uint8Array): boolean {
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).subarray(-1024);
  return tail.includes("%%EOF", 0, "latin1");
}

async function pageItems(document: PdfJsDocument, pageNumber: number): Promise<PdfTextItem[]> {
  const page = await document.getPage(pageNumber);
  const content = await page.getTextContent();
  const items: PdfTextItem[] = [];
  for (const raw of content.items as PdfJsTextItem[]) {
    if (typeof raw.str !== "string" || raw.transform === undefined) continue;
    const [a = 0, b = 0, c = 0, d = 0, x = 0, y = 0] = raw.transform;
    const fontName = (raw as { fontName?: string }).fontName ?? "";
    items.push({
      text: raw.str,
      x,
      y,
      width: raw.width ?? 0,
      fontSize: Math.hypot(c, d) || Math.hypot(a, b),
      monospace: content.styles[fontName]?.fontFamily === "monospace",
    });
  }
  page.cleanup();
  return items;
}

async function readPdf({ bytes, path, limits, signal }: ReaderInput): Promise<ReadFileResult> {
  if (!endsWithEofMarker(bytes)) {
    throw new ReaderSkipError(
      "corrupt",
      `${path}: the PDF ends without its %%EOF marker, so it looks truncated (${bytes.byteLength} bytes). Copy or download the file again.`,
    );
  }
  checkPdfStreams({ bytes, path, limits });
  const document = await openDocument(bytes, path);
  try {
    const pages: PdfLine[][] = [];
    for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber++) {
      signal?.throwIfAborted();
      try {
        pages.push(itemsToLines(await pageItems(document, pageNumber)));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ReaderSkipError(
          "corrupt",
          `${path}: page ${pageNumber} of ${document.numPages} cannot be read (${reason}).`,
        );
      }
    }
    const pagesWithoutText = pages.filter((lines) => lines.length === 0).length;
    if (pagesWithoutText === pages.length) {
      throw new ReaderSkipError(
        "no_text_layer",
        `${path}: none of its ${pages.length} pages has a text layer (a scanned PDF?). Run OCR on it first (for example \`ocrmypdf\`).`,
      );
    }
    const metadata: Record<string, string | number> = { page_count: document.numPages };
    if (pagesWithoutText > 0) metadata.pages_without_text = pagesWithoutText;
    const info = (await document.getMetadata().catch(() => undefined))?.info as
      | { Title?: unknown }
      | undefined;
    if (typeof info?.Title === "string" && info.Title.trim().length > 0) metadata.title = info.Title.trim();
    return { blocks: linesToBlocks(dropRunningLines(pages)), metadata };
  } finally {
    await document.destroy();
  }
}

/**
 * Reads PDF files with Mozilla's PDF.js: text per page in reading order, lines grouped into paragraphs, words
 * hyphenated across line ends joined, running headers, footers and page numbers dropped, larger type as
 * headings, monospaced lines as code; every block carries its page. An encrypted PDF is skipped as `encrypted`,
 * a damaged or truncated one as `corrupt`, one whose pages hold no text (scanned) as `no_text_layer`, one whose
 * compressed streams expand past `limits.maxDecompressedBytes` as `too_large`.
 */
export const pdfReader: DocumentReader = {
  format: "pdf",
  extensions: [".pdf"],
  read: readPdf,
};
