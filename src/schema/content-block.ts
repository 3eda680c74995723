import { checkArrayOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

/** How closely an OpenAI-style vision model looks at an image; sent as `detail`. */
export type ImageDetail = "low" | "high" | "auto";

/** Text in a multimodal prompt. */
export interface TextBlock {
  readonly type: "text";
  readonly text: string;
}

/**
 * An image in a multimodal prompt. Exactly one of `data`, `path` and `url` says where the pixels are.
 * Providers send bytes and files as data URLs and URLs as given.
 */
export interface ImageBlock {
  readonly type: "image";
  /** The encoded image (PNG, JPEG, …), not decoded pixels. */
  readonly data?: Uint8Array | undefined;
  /** A local file holding the encoded image. */
  readonly path?: string | undefined;
  /** An `http(s):` or `data:` URL. */
  readonly url?: string | undefined;
  /** `image/png`, `image/jpeg`, …; read from the header when not given. */
  readonly mediaType?: string | undefined;
  /** Passed through to the model. @default "auto" (counted as "high") */
  readonly detail?: ImageDetail | undefined;
  /** Pixels, when known (read from the header before packing). */
  readonly width?: number | undefined;
  readonly height?: number | undefined;
  /** A caption or alt text, for logs and for models that read text only. */
  readonly alt?: string | undefined;
  /** The node the image came from. */
  readonly nodeId?: string | undefined;
}

/** The unit a multimodal prompt is made of: text and images, in order. */
export type ContentBlock = TextBlock | ImageBlock;

/**
 * Throws an {@link InvalidArgumentError} unless `value` is a content block (`{ type: "text", text }` or
 * `{ type: "image", … }`): for plain JavaScript callers of the helpers that count blocks.
 */
export function checkContentBlock(
  value: unknown,
  parameter: string,
  type?: ContentBlock["type"],
): asserts value is ContentBlock {
  const block = value as { type?: unknown; text?: unknown } | null | undefined;
  const fits =
    typeof block === "object" &&
    block !== null &&
    (type === undefined || block.type === type) &&
    ((block.type === "text" && typeof block.text === "string") || block.type === "image");
  if (!fits) {
    throw new InvalidArgumentError({
      parameter,
      value,
      expected:
        type === "image"
          ? 'be an image block ({ type: "image", path | url | data, … })'
          : 'be a content block ({ type: "text", text } or { type: "image", path | url | data, … })',
    });
  }
}

/** {@link checkContentBlock} for an array and each of its entries (`blocks`, then `blocks[index]`). */
export function checkContentBlocks(
  value: unknown,
  parameter: string,
): asserts value is readonly ContentBlock[] {
  checkArrayOf(parameter, value, "be an array of content blocks", (block, name) =>
    checkContentBlock(block, name),
  );
}

/** Where an image block is, for messages: its path, URL, or `N bytes`. */
export function describeImage(image: ImageBlock): string {
  const where = image.path ?? (image.url?.startsWith("data:") ? "a data URL" : image.url);
  const name = where ?? `${image.data?.byteLength ?? 0} bytes`;
  return image.nodeId === undefined ? `image ${name}` : `image ${name} (node ${image.nodeId})`;
}

/**
 * The text a model without eyes gets for an image: its caption or alt text, marked as an image. Used
 * when a multimodal prompt is flattened to text (logs, the `content` string of a chat message).
 */
export function imagePlaceholder(image: ImageBlock): string {
  const alt = image.alt?.trim();
  return alt ? `[image: ${alt}]` : "[image]";
}

/** Blocks as one string: text as is, images as {@link imagePlaceholder}, joined with `"\n\n"`. */
export function blocksToText(blocks: readonly ContentBlock[]): string {
  return blocks.map((block) => (block.type === "text" ? block.text : imagePlaceholder(block))).join("\n\n");
}
