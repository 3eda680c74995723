import { constants, inflateSync } from "node:zlib";
import { type ReaderLimits, ReaderSkipError } from "./types.js";

// PDF.js inflates a content stream whole, into one growing buffer: a 200 KB PDF whose page content inflates to
// 200 MB took 17 s and 736 MB of memory, so a file within maxFileBytes could take the process down. Before
// PDF.js opens a file, each Flate-compressed stream PDF.js would decode for text (content, fonts, object
// streams; images are left out, text extraction never decodes them) is inflated here with zlib, its output capped
// at what is left of `maxDecompressedBytes`. A stream too damaged to inflate is left to PDF.js to judge.

const flateFilter = /\/(?:FlateDecode|Fl)\b/;
const imageSubtype = /\/Subtype\s*\/Image\b/;

/**
 * Checks that the Flate streams of a PDF expand to at most `limits.maxDecompressedBytes` in all.
 * @throws ReaderSkipError `too_large` when they expand past it (a decompression bomb).
 */
export function checkPdfStreams({
  bytes,
  path,
  limits,
}: {
  bytes: Uint8Array;
  path: string;
  limits: ReaderLimits;
}): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let left = limits.maxDecompressedBytes;
  for (
    let at = buffer.indexOf("stream", 0, "latin1");
    at !== -1;
    at = buffer.indexOf("stream", at, "latin1")
  ) {
    const keyword = at;
    at += 6;
    if (keyword >= 3 && buffer.toString("latin1", keyword - 3, keyword) === "end") continue;
    let start = at;
    if (buffer[start] === 0x0d) start++;
    if (buffer[start] === 0x0a) start++;
    const end = buffer.indexOf("endstream", start, "latin1");
    if (end === -1) break;
    at = end + 9;
    const dictionary = buffer.toString(
      "latin1",
      Math.max(0, buffer.lastIndexOf("obj", keyword, "latin1")),
      keyword,
    );
    if (!flateFilter.test(dictionary) || imageSubtype.test(dictionary)) continue;
    let inflated: number;
    try {
      inflated = inflateSync(buffer.subarray(start, end), {
        maxOutputLength: Math.max(1, left + 1),
        finishFlush: constants.Z_SYNC_FLUSH,
      }).byteLength;
    } catch (error) {
      if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") inflated = left + 1;
      else continue;
    }
    left -= inflated;
    if (left < 0) {
      const megabytes = (limits.maxDecompressedBytes / 1024 / 1024).toFixed(1);
      throw new ReaderSkipError(
        "too_large",
        `${path}: its compressed streams expand past ${megabytes} MB (a decompression bomb?). ` +
          "Raise maxDecompressedBytes if you trust the file.",
      );
    }
  }
}
