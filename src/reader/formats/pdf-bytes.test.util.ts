import { deflateSync } from "node:zlib";

// Builds small, valid PDF files byte by byte for the PDF reader's tests: real bytes PDF.js parses, with a correct
// cross-reference table, so each test states exactly what is on each page.

/** One run of text drawn at (x, y) in points from the bottom-left corner, in Helvetica (or Courier) of `size`. */
export interface PdfTextRun {
  x: number;
  y: number;
  size: number;
  text: string;
  font?: "helvetica" | "courier";
}

export interface PdfPageSpec {
  texts?: PdfTextRun[];
  /** Draws a 2×2 grey image over the page (a scanned page has only that). */
  image?: boolean;
}

export interface MakePdfOptions {
  pages: PdfPageSpec[];
  /** Flate-compresses each page's content stream, with this many spaces after the drawing (a bomb, when large). */
  flatePadding?: number;
  /**
   * Adds a standard-security-handler `/Encrypt` dictionary whose user password is not empty, as a PDF saved with
   * "require a password to open" has: readers cannot open it without the password.
   */
  encrypted?: boolean;
}

// WinAnsiEncoding's codes for the few characters beyond Latin-1 the tests draw.
const winAnsi: Record<string, string> = { "•": "\x95", "–": "\x96", "—": "\x97" };

function escapePdfString(text: string): string {
  return text
    .replace(/[\\()]/g, (character) => `\\${character}`)
    .replace(/[•–—]/g, (character) => winAnsi[character] ?? "?");
}

function contentStream(page: PdfPageSpec): string {
  const parts: string[] = [];
  if (page.image) parts.push("q 500 0 0 700 50 50 cm /Im1 Do Q");
  for (const run of page.texts ?? []) {
    const font = run.font === "courier" ? "F2" : "F1";
    parts.push(`BT /${font} ${run.size} Tf ${run.x} ${run.y} Td (${escapePdfString(run.text)}) Tj ET`);
  }
  return parts.join("\n");
}

/** Returns the bytes of a PDF with the given pages. */
export function makePdf({ pages, encrypted = false, flatePadding }: MakePdfOptions): Uint8Array {
  // Objects: 1 catalog, 2 pages, 3 Helvetica, 4 Courier, 5 image, then per page: page object and content stream.
  const objects: string[] = [];
  const pageIds = pages.map((_, index) => 6 + index * 2);
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages.length} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  objects[4] = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>";
  const pixels = "\x40\x80\xc0\xff";
  objects[5] =
    `<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 ` +
    `/Length ${pixels.length} >>\nstream\n${pixels}\nendstream`;
  pages.forEach((page, index) => {
    const pageId = pageIds[index] as number;
    const content = contentStream(page);
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageId + 1} 0 R ` +
      `/Resources << /Font << /F1 3 0 R /F2 4 0 R >> /XObject << /Im1 5 0 R >> >> >>`;
    if (flatePadding === undefined) {
      objects[pageId + 1] =
        `<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`;
    } else {
      const compressed = deflateSync(
        Buffer.concat([Buffer.from(content, "latin1"), Buffer.alloc(flatePadding, 0x20)]),
      );
      objects[pageId + 1] =
        `<< /Length ${compressed.byteLength} /Filter /FlateDecode >>\nstream\n${compressed.toString("latin1")}\nendstream`;
    }
  });
  let encryptId: number | undefined;
  if (encrypted) {
    encryptId = objects.length;
    const owner = "\x8f".repeat(32);
    const user = "\x2a".repeat(32);
    objects[encryptId] =
      `<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 ` +
      `/O <${Buffer.from(owner, "latin1").toString("hex")}> /U <${Buffer.from(user, "latin1").toString("hex")}> >>`;
  }

  let body = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(body, "latin1");
    body += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xrefOffset = Buffer.byteLength(body, "latin1");
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) body += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  const encryptEntry =
    encryptId === undefined
      ? ""
      : ` /Encrypt ${encryptId} 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]`;
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R${encryptEntry} >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(body, "latin1"));
}
