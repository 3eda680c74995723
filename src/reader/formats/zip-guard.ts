import { type ReaderLimits, ReaderSkipError } from "./types.js";

// A zip (DOCX, and any zip-based format to come) is checked before a library extracts it: first the sizes its
// central directory declares, against `maxDecompressedBytes` and `maxCompressionRatio`; then each entry is
// inflated here, in small steps, counting the bytes that really come out, since a crafted zip can declare small
// sizes and still expand to gigabytes (JSZip, which mammoth uses, checks a size only after inflating all of it).
// The entries are found as JSZip finds them: through the central directory and each local header's offset.

const centralDirectoryEnd = 0x06054b50;
const centralEntry = 0x02014b50;
const localEntry = 0x04034b50;
const step = 4096;

/** What the check learnt: the inflated size, and the bytes of the few small entries asked for. */
export interface ZipCheck {
  decompressedBytes: number;
  entries: Map<string, Uint8Array>;
  /** An entry kept, decoded as UTF-8 (an XML part); undefined when it was not kept or not there. */
  text(name: string): string | undefined;
}

function findEndOfCentralDirectory(view: DataView): number {
  // The record is 22 bytes plus a comment of up to 65,535 bytes, at the end of the file.
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === centralDirectoryEnd) return at;
  }
  return -1;
}

const megabytes = (bytes: number) =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Checks a zip's declared and real expansion against the limits, and returns the named small entries' bytes.
 * @throws ReaderSkipError `too_large` for a zip that expands past the limits (a zip bomb), `corrupt` for one
 * that is not a readable zip or whose entries lie about their sizes.
 */
export async function checkZip(options: {
  bytes: Uint8Array;
  path: string;
  limits: ReaderLimits;
  /** Entries whose inflated bytes to return: their names, or a test of a name. */
  keep?: readonly string[] | ((name: string) => boolean);
}): Promise<ZipCheck> {
  const { bytes, path, limits, keep = [] } = options;
  const corrupt = (why: string) =>
    new ReaderSkipError("corrupt", `${path}: not a readable zip file (${why}).`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfCentralDirectory(view);
  if (end === -1) throw corrupt("no end-of-central-directory record; the file may be truncated");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const tooLarge = (declared: number, compressed: number) =>
    new ReaderSkipError(
      "too_large",
      `${path}: its zip parts expand to ${megabytes(declared)} from ${megabytes(compressed)} (ratio ` +
        `${(declared / Math.max(compressed, 1)).toFixed(0)}:1), over the limits of ${megabytes(limits.maxDecompressedBytes)} ` +
        `and ${limits.maxCompressionRatio}:1 (a zip bomb?). Raise maxDecompressedBytes / maxCompressionRatio if you trust the file.`,
    );

  const parts: { name: string; method: number; compressed: number; declared: number; offset: number }[] = [];
  let declaredTotal = 0;
  let compressedTotal = 0;
  for (let index = 0; index < count; index++) {
    if (at + 46 > bytes.byteLength || view.getUint32(at, true) !== centralEntry)
      throw corrupt("damaged central directory");
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const declared = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const skip = nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    // ZIP64 sizes (0xFFFFFFFF) mean a part of 4 GB or more: past any limit a document reader has.
    if (declared === 0xffffffff || compressed === 0xffffffff) throw tooLarge(2 ** 32, bytes.byteLength);
    parts.push({ name, method, compressed, declared, offset: view.getUint32(at + 42, true) });
    declaredTotal += declared;
    compressedTotal += compressed;
    at += 46 + skip;
  }
  const overLimits = (expanded: number, compressed: number) =>
    expanded > limits.maxDecompressedBytes ||
    expanded > limits.maxCompressionRatio * Math.max(compressed, step);
  if (overLimits(declaredTotal, compressedTotal)) throw tooLarge(declaredTotal, compressedTotal);

  const { Inflate } = await import("fflate");
  const entries = new Map<string, Uint8Array>();
  let realTotal = 0;
  for (const part of parts) {
    const local = part.offset;
    if (local + 30 > bytes.byteLength || view.getUint32(local, true) !== localEntry)
      throw corrupt(`no local header for ${part.name}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = bytes.subarray(start, start + part.compressed);
    if (data.byteLength < part.compressed) throw corrupt(`${part.name} is cut short`);
    const chunks: Uint8Array[] = [];
    const wanted = typeof keep === "function" ? keep(part.name) : keep.includes(part.name);
    let real = 0;
    if (part.method === 0) {
      real = data.byteLength;
      if (wanted) chunks.push(data);
    } else if (part.method === 8) {
      const inflater = new Inflate((chunk) => {
        real += chunk.byteLength;
        if (real > part.declared)
          throw corrupt(`${part.name} expands past the ${part.declared} bytes it declares`);
        if (wanted) chunks.push(chunk);
      });
      try {
        for (let offset = 0; offset < data.byteLength; offset += step) {
          inflater.push(data.subarray(offset, offset + step), offset + step >= data.byteLength);
        }
      } catch (error) {
        if (ReaderSkipError.isInstance(error)) throw error;
        throw corrupt(`${part.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    } else {
      throw corrupt(
        `${part.name} uses compression method ${part.method}; only stored and deflated parts are read`,
      );
    }
    if (real !== part.declared)
      throw corrupt(`${part.name} expands to ${real} bytes but declares ${part.declared}`);
    realTotal += real;
    if (wanted) entries.set(part.name, Buffer.concat(chunks));
  }
  const decoder = new TextDecoder();
  return {
    decompressedBytes: realTotal,
    entries,
    text: (name) => {
      const entry = entries.get(name);
      return entry === undefined ? undefined : decoder.decode(entry);
    },
  };
}
