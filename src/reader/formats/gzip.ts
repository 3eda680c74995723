import { createGunzip } from "node:zlib";
import { plainTextReader } from "./plain-text.js";
import type { DocumentReader, ReaderInput, ReaderLimits, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

// The ratio limit applies only past this size, so a small, very repetitive text file is not called a bomb.
const RATIO_FREE_BYTES = 1024 * 1024;

/**
 * A reader for `.gz` files (how Debian ships `README.gz`, `changelog.Debian.gz` and man pages): decompresses with
 * `node:zlib` under the limits, then reads the result with the reader `lookup` returns for the inner name
 * (`foo.1.gz` → `foo.1`); a name `lookup` knows no reader for (`README`) is read as plain text.
 *
 * @param lookup - Finds the reader for a file name (the walk's registry).
 * @throws {ReaderSkipError} `too_large` when the output passes `limits.maxDecompressedBytes` or
 *   `limits.maxCompressionRatio` (past the first MiB); `corrupt` for data that is not gzip.
 */
export function createGzipReader(lookup: (innerPath: string) => DocumentReader | undefined): DocumentReader {
  return {
    format: "gzip",
    extensions: [".gz"],
    async read(input: ReaderInput): Promise<ReadFileResult> {
      const innerPath = input.path.replace(/\.gz$/i, "");
      const inner = lookup(innerPath) ?? plainTextReader;
      const bytes = await gunzip(input);
      const result = await inner.read({ ...input, bytes, path: innerPath });
      return {
        blocks: result.blocks,
        metadata: { ...result.metadata, compression: "gzip", inner_format: inner.format },
      };
    },
  };
}

async function gunzip({ bytes, path, limits, signal }: ReaderInput): Promise<Uint8Array> {
  const cap = outputCap(bytes.length, limits);
  const stream = createGunzip();
  const chunks: Buffer[] = [];
  let total = 0;
  stream.end(bytes);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      total += chunk.length;
      if (total > cap.bytes) {
        throw new ReaderSkipError(
          "too_large",
          `${path}: decompresses to more than ${cap.bytes} bytes (${cap.reason}); a compression bomb or a file too large to read. Raise the limit if the file is genuine.`,
        );
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (ReaderSkipError.isInstance(error) || signal?.aborted) throw error;
    throw new ReaderSkipError(
      "corrupt",
      `${path}: not valid gzip data (${error instanceof Error ? error.message : String(error)}).`,
    );
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, total);
}

function outputCap(compressedBytes: number, limits: ReaderLimits): { bytes: number; reason: string } {
  const byRatio = Math.max(RATIO_FREE_BYTES, compressedBytes * limits.maxCompressionRatio);
  return byRatio < limits.maxDecompressedBytes
    ? {
        bytes: byRatio,
        reason: `over ${limits.maxCompressionRatio}x the ${compressedBytes} compressed bytes`,
      }
    : { bytes: limits.maxDecompressedBytes, reason: "the decompressed size limit" };
}
