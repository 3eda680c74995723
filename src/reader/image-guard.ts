import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import {
  type ImageCaps,
  type ImageLimits,
  OPENAI_IMAGE_LIMITS,
  readImageBytes,
  sniffImageType,
} from "../schema/image-bytes.js";
import { ImageNode } from "../schema/image-node.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { type OutsideRootsCode, resolveInsideRoots } from "./inside-roots.js";

/** Why an image was left out of a request. */
export type SkippedImageCode =
  | OutsideRootsCode
  | "too_large"
  | "not_an_image"
  | "over_request_limit"
  | "remote"
  | "bad_reference";

/** An image left out, and why: the answer then comes from the text. */
export interface SkippedImage {
  /** The reference as written (`../secret/s.png`), or the image node's path or URL. */
  src: string;
  /** The node that referenced the image, or the image node itself. */
  nodeId: string;
  code: SkippedImageCode;
  /** A sentence for people: `leads outside the folders given (a symbolic link out, or ../)`. */
  reason: string;
}

/** Options of {@link guardImages}. */
export interface GuardImagesOptions {
  /** Real paths (from `realRoots`) image files must lie under. */
  roots: readonly string[];
  /** Size and count caps. @default OpenAI's published limits ({@link OPENAI_IMAGE_LIMITS}) */
  limits?: ImageLimits | undefined;
  /** Keep `http(s):` image URLs (sent as given, never fetched here). @default false */
  remote?: boolean | undefined;
}

/** What {@link guardImages} kept and left out. */
export interface GuardImagesResult {
  /** The nodes, each image node that passed holding its checked bytes; the others left out. */
  nodes: NodeWithScore[];
  /** The images left out, in order. */
  skipped: SkippedImage[];
  /** Images kept. */
  attached: number;
  /** Bytes of the images kept. */
  bytes: number;
}

/**
 * Every image node checked before anything may send it: a file must lie under `roots` (by `realpath`: no
 * symlink out, no `/proc`, no device), be at most `maxImageBytes` (by `stat`, before reading), and be a PNG,
 * JPEG, GIF or WebP by its magic bytes; bytes and `data:` URLs are checked the same way. Kept images hold their
 * bytes (the file is read once, here), so nothing reads the path again later. Together they stay within
 * `maxImages` and `maxRequestBytes`. An image that fails is left out and listed in `skipped`; text nodes pass.
 * @example const { nodes, skipped } = await guardImages(retrieved, { roots: await realRoots(["docs"]) })
 */
export async function guardImages(
  nodes: readonly NodeWithScore[],
  { roots, limits = {}, remote = false }: GuardImagesOptions,
): Promise<GuardImagesResult> {
  const caps = imageLimits(limits);
  const result: GuardImagesResult = { nodes: [], skipped: [], attached: 0, bytes: 0 };
  for (const entry of nodes) {
    const { node } = entry;
    if (!ImageNode.isInstance(node)) {
      result.nodes.push(entry);
      continue;
    }
    const src = typeof node.metadata.src === "string" ? node.metadata.src : describeSource(node);
    const nodeId = typeof node.metadata.referenced_by === "string" ? node.metadata.referenced_by : node.id;
    const skip = (code: SkippedImageCode, reason: string) =>
      result.skipped.push({ src, nodeId, code, reason });
    const checked = await checkImage(node, roots, caps.maxImageBytes, remote);
    if (!checked.ok) {
      skip(checked.code, checked.reason);
      continue;
    }
    const size = checked.node.image?.byteLength ?? 0;
    if (result.attached >= caps.maxImages) {
      skip("over_request_limit", `more than ${caps.maxImages} images in one request`);
      continue;
    }
    if (result.bytes + size > caps.maxRequestBytes) {
      skip(
        "over_request_limit",
        `${size} bytes would take the request's images over ${caps.maxRequestBytes} bytes`,
      );
      continue;
    }
    result.attached += 1;
    result.bytes += size;
    result.nodes.push({ ...entry, node: checked.node });
  }
  return result;
}

type Checked = { ok: true; node: ImageNode } | { ok: false; code: SkippedImageCode; reason: string };

async function checkImage(
  node: ImageNode,
  roots: readonly string[],
  maxBytes: number,
  remote: boolean,
): Promise<Checked> {
  if (node.imagePath !== undefined) {
    const inside = resolveInsideRoots(node.imagePath, roots);
    if (!inside.ok) return inside;
    if (inside.stats.size > maxBytes) {
      return {
        ok: false,
        code: "too_large",
        reason: `${inside.stats.size} bytes is over the ${maxBytes}-byte limit per image`,
      };
    }
    const read = await readImageBytes({ path: inside.realPath, maxBytes, expected: inside.stats });
    return read.ok ? withBytes(node, read.bytes, read.mediaType) : read;
  }
  if (node.image !== undefined) return checkBytes(node, node.image, maxBytes);
  const url = node.imageUrl ?? "";
  if (/^data:/i.test(url)) {
    const match = /^data:[^,]*;base64,(.*)$/is.exec(url);
    if (!match) {
      return { ok: false, code: "not_an_image", reason: "a data: URL that is not base64" };
    }
    const payload = match[1] ?? "";
    if (Math.floor((payload.length * 3) / 4) > maxBytes + 2) {
      return {
        ok: false,
        code: "too_large",
        reason: `a data: URL over the ${maxBytes}-byte limit per image`,
      };
    }
    return checkBytes(node, new Uint8Array(Buffer.from(payload, "base64")), maxBytes);
  }
  if (/^https?:\/\//i.test(url)) {
    return remote
      ? { ok: true, node }
      : {
          ok: false,
          code: "remote",
          reason: "a remote image (not fetched, and not sent unless remote is set)",
        };
  }
  return { ok: false, code: "bad_reference", reason: "not a file, bytes, data: URL or http(s): URL" };
}

async function checkBytes(node: ImageNode, bytes: Uint8Array, maxBytes: number): Promise<Checked> {
  if (bytes.byteLength > maxBytes) {
    return {
      ok: false,
      code: "too_large",
      reason: `${bytes.byteLength} bytes is over the ${maxBytes}-byte limit per image`,
    };
  }
  const mediaType = sniffImageType(bytes);
  if (mediaType === undefined) {
    return {
      ok: false,
      code: "not_an_image",
      reason: "not a PNG, JPEG, GIF or WebP image by its first bytes (the formats vision models take)",
    };
  }
  return withBytes(node, bytes, mediaType);
}

/** The node holding its checked bytes, its size read from the header: an image must parse as one. */
async function withBytes(node: ImageNode, bytes: Uint8Array, mediaType: string): Promise<Checked> {
  let size: { width?: number; height?: number };
  try {
    const { imageSize } = await import("image-size");
    size = imageSize(bytes);
  } catch {
    return { ok: false, code: "not_an_image", reason: "an image header that does not parse (corrupt?)" };
  }
  return {
    ok: true,
    node: node.with({
      image: bytes,
      imagePath: undefined,
      imageUrl: undefined,
      mediaType,
      ...(size.width === undefined ? {} : { width: size.width }),
      ...(size.height === undefined ? {} : { height: size.height }),
    }),
  };
}

function describeSource(node: ImageNode): string {
  if (node.imagePath !== undefined) return node.imagePath;
  if (node.imageUrl !== undefined) return node.imageUrl.startsWith("data:") ? "a data: URL" : node.imageUrl;
  return `${node.image?.byteLength ?? 0} bytes`;
}

/**
 * The caps, OpenAI's where not given.
 * @throws InvalidArgumentError for a cap that is not a positive whole number
 */
export function imageLimits(limits: ImageLimits = {}): ImageCaps {
  const caps: ImageCaps = { ...OPENAI_IMAGE_LIMITS };
  for (const name of ["maxImageBytes", "maxRequestBytes", "maxImages"] as const) {
    const value: unknown = limits[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
      throw new InvalidArgumentError({
        parameter: `limits.${name}`,
        value,
        expected: "be a positive whole number",
        hint: `Leave it out for OpenAI's published limit (${OPENAI_IMAGE_LIMITS[name]}).`,
      });
    }
    caps[name] = value;
  }
  return caps;
}
