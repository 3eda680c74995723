import { createWriteStream } from "node:fs";
import { open, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { StringDecoder } from "node:string_decoder";
import { constants, createGunzip, createGzip } from "node:zlib";

// Lines are written in batches of about this many characters: few writes, and no string of the whole file.
const BATCH_CHARS = 1 << 16;

/**
 * Writes `data` to `file` through a temporary file and a rename, so no reader ever sees half a file: a buffer
 * as it is, or lines as gzip-compressed JSON Lines (level 1: most of the size win for a fraction of the time),
 * streamed so that the whole file is never one string in memory. The temporary file is
 * `.<name>.<pid>.<uuid>.tmp`; it is removed when the write fails.
 */
export async function writeAtomically(
  file: string,
  data: Buffer | Iterable<string>,
  signal: AbortSignal | undefined,
): Promise<void> {
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${crypto.randomUUID()}.tmp`,
  );
  try {
    if (Buffer.isBuffer(data)) await writeFile(temporary, data, signal ? { signal } : {});
    else {
      await pipeline(
        Readable.from(batches(data)),
        createGzip({ level: constants.Z_BEST_SPEED }),
        createWriteStream(temporary),
        signal ? { signal } : {},
      );
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
}

function* batches(lines: Iterable<string>): Generator<string> {
  let batch = "";
  for (const line of lines) {
    batch += `${line}\n`;
    if (batch.length >= BATCH_CHARS) {
      yield batch;
      batch = "";
    }
  }
  if (batch !== "") yield batch;
}

/**
 * The lines of a gzip-compressed file, in batches (the complete lines of each decompressed chunk, so a line costs
 * no promise of its own), read and decompressed as they are consumed: stop early (a `break`) and the rest of the
 * file is never read. Opening the file fails as `open` does (ENOENT when missing); a damaged gzip stream fails
 * while iterating.
 */
export async function* readGzipLines(file: string, signal?: AbortSignal): AsyncGenerator<string[]> {
  const handle = await open(file, "r");
  // The signal is checked per chunk below: handing it to the stream costs more at start-up than a whole small read.
  const source = handle.createReadStream({ highWaterMark: 1 << 16 });
  const gunzip = createGunzip({ chunkSize: 1 << 16 });
  source.on("error", (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  const decoder = new StringDecoder("utf8");
  // Pieces of a line that spans chunks: joined once, so a long line costs linear time.
  let pending: string[] = [];
  try {
    for await (const chunk of gunzip) {
      signal?.throwIfAborted();
      const text = decoder.write(chunk as Buffer);
      const lines: string[] = [];
      let start = 0;
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
        pending.push(text.slice(start, end));
        lines.push(pending.length === 1 ? (pending[0] as string) : pending.join(""));
        pending = [];
        start = end + 1;
      }
      if (start < text.length) pending.push(text.slice(start));
      if (lines.length > 0) yield lines;
    }
    pending.push(decoder.end());
    const last = pending.join("");
    if (last !== "") yield [last];
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}
