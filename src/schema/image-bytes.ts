import { constants, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { describeImage, type ImageBlock } from "./content-block.js";

/**
 * How much image a request may carry. The defaults are OpenAI's published limits for image inputs (the
 * "Images and vision" guide, "Image input requirements"): up to 20 MB per image, up to 50 MB of image bytes and
 * up to 500 images per request. Counted in decimal megabytes, the smaller reading.
 */
export interface ImageLimits {
  /** Bytes one image may have. @default 20000000 */
  maxImageBytes?: number | undefined;
  /** Bytes all the images of one request may have together. @default 50000000 */
  maxRequestBytes?: number | undefined;
  /** Images one request may carry. @default 500 */
  maxImages?: number | undefined;
}

/** Every cap of {@link ImageLimits}, set. */
export type ImageCaps = { [Name in keyof ImageLimits]-?: number };

/** {@link ImageLimits} with OpenAI's published values. */
export const OPENAI_IMAGE_LIMITS: Readonly<ImageCaps> = Object.freeze({
  maxImageBytes: 20_000_000,
  maxRequestBytes: 50_000_000,
  maxImages: 500,
});

/** The image formats OpenAI's vision models take, told by their first bytes. */
export type SniffedImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((byte, index) => bytes[at + index] === byte);
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, to));
}

/**
 * The format of an encoded image by its magic bytes (the first 12 suffice): PNG, JPEG, GIF or WebP, the
 * formats OpenAI accepts; undefined for anything else, whatever the file is called.
 * @example sniffImageType(await readFile("chart.png")) // "image/png"
 */
export function sniffImageType(bytes: Uint8Array): SniffedImageType | undefined {
  if (startsWith(bytes, PNG)) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  const gif = ascii(bytes, 0, 6);
  if (gif === "GIF87a" || gif === "GIF89a") return "image/gif";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** Why {@link readImageBytes} refused a file. */
export type ImageBytesCode = "too_large" | "not_an_image" | "not_a_file" | "unreadable";

/** The answer of {@link readImageBytes}. */
export type ImageBytesResult =
  | { ok: true; bytes: Uint8Array; mediaType: SniffedImageType }
  | { ok: false; code: ImageBytesCode; reason: string };

const CHUNK_BYTES = 1 << 16;

/**
 * Reads an image file, bounded: the file is opened without blocking (a FIFO swapped in never hangs) and, with
 * `expected`, without following a final symbolic link; it is examined through the open handle (a regular file, the
 * same file as `expected` when given, at most `maxBytes`), its magic bytes checked before the rest is read, and never more
 * than `maxBytes + 1` bytes read (a file that grows, or `/proc` files that report size 0, are still bounded).
 * @example const result = await readImageBytes({ path: "chart.png", maxBytes: 20_000_000 })
 */
export async function readImageBytes({
  path,
  maxBytes,
  expected,
}: {
  /** The file; a real path when the caller checked where it lies. */
  path: string;
  /** Larger files are refused before their content is read. */
  maxBytes: number;
  /** The `stat` the caller checked of a real path: the file opened must be that file (same device and inode). */
  expected?: Pick<Stats, "dev" | "ino"> | undefined;
}): Promise<ImageBytesResult> {
  const noFollow = expected === undefined ? 0 : (constants.O_NOFOLLOW ?? 0);
  const flags = constants.O_RDONLY | noFollow | (constants.O_NONBLOCK ?? 0);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return { ok: false, code: "unreadable", reason: `could not be opened (${code})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      return {
        ok: false,
        code: "not_a_file",
        reason: "not a regular file (a folder, device, FIFO or socket)",
      };
    }
    if (expected && (stats.dev !== expected.dev || stats.ino !== expected.ino)) {
      return { ok: false, code: "unreadable", reason: "the file changed while it was being checked" };
    }
    if (stats.size > maxBytes) return tooLarge(stats.size, maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(total === 0 ? 16 : Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return tooLarge(total, maxBytes, "at least ");
      if (chunks.length === 1 && sniffImageType(chunks[0] as Buffer) === undefined && total >= 12) {
        return notAnImage();
      }
    }
    const bytes = new Uint8Array(Buffer.concat(chunks, total));
    const mediaType = sniffImageType(bytes);
    return mediaType === undefined ? notAnImage() : { ok: true, bytes, mediaType };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return { ok: false, code: "unreadable", reason: `could not be read (${code})` };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * The bytes of an image block's file, for a provider about to send them: read by {@link readImageBytes}
 * within OpenAI's per-image limit, so a huge file is refused by its size before it is read and a file that is
 * not an image never leaves the machine. Paths an application names are its own choice; the CLI checks
 * documents' images against the folders given before they get here.
 * @throws InvalidArgumentError naming the file and why it cannot be sent
 */
export async function readImageFileBlock(
  image: ImageBlock,
  maxBytes: number = OPENAI_IMAGE_LIMITS.maxImageBytes,
): Promise<Uint8Array> {
  const read = await readImageBytes({ path: image.path as string, maxBytes });
  if (read.ok) return read.bytes;
  throw new InvalidArgumentError({
    parameter: "image.path",
    value: image.path,
    expected: `be a readable PNG, JPEG, GIF or WebP file of at most ${maxBytes} bytes (the ${describeImage(image)})`,
    hint: `It is ${read.reason}. Use a smaller image in one of those formats, or leave the image out.`,
  });
}

function tooLarge(size: number, maxBytes: number, prefix = ""): ImageBytesResult {
  return {
    ok: false,
    code: "too_large",
    reason: `${prefix}${size} bytes is over the ${maxBytes}-byte limit per image`,
  };
}

function notAnImage(): ImageBytesResult {
  return {
    ok: false,
    code: "not_an_image",
    reason: "not a PNG, JPEG, GIF or WebP image by its first bytes (the formats vision models take)",
  };
}
