import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { ImageBlock, ImageDetail } from "./content-block.js";
import { MetadataMode, TextNode, type TextNodeInit } from "./text-node.js";

const marker = Symbol.for("ragsynth.image-node");

/** The fields of an {@link ImageNode}: one of `image`, `imagePath`, `imageUrl`; `text` is the caption or alt text. */
export interface ImageNodeInit extends Omit<TextNodeInit, "text"> {
  /** Caption or alt text: what retrieval and text-only models see. @default "" */
  text?: string;
  /** The encoded image (PNG, JPEG, …), or the same as base64. */
  image?: Uint8Array | string | undefined;
  /** A local file holding the image. */
  imagePath?: string | undefined;
  /** An `http(s):` or `data:` URL. */
  imageUrl?: string | undefined;
  /** `image/png`, `image/jpeg`, …; guessed from the file extension or read from the header when left out. */
  mediaType?: string | undefined;
  /** Sent to the model as `detail`. @default "auto" */
  detail?: ImageDetail | undefined;
  /** Pixel size when known; read from the image header before packing otherwise. */
  width?: number | undefined;
  height?: number | undefined;
}

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  bmp: "image/bmp",
  svg: "image/svg+xml",
  tif: "image/tiff",
  tiff: "image/tiff",
  avif: "image/avif",
  heic: "image/heic",
};

/** The file extensions ragsynth treats as images (`png`, `jpg`, …). */
export const IMAGE_EXTENSIONS: readonly string[] = Object.keys(MEDIA_TYPES);

/** The media type of an image file by its extension (`"a/b.PNG"` → `"image/png"`), or undefined. */
export function mediaTypeFromPath(path: string): string | undefined {
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(path)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : MEDIA_TYPES[extension];
}

function decodeImage(image: Uint8Array | string | undefined): Uint8Array | undefined {
  if (image === undefined || image instanceof Uint8Array) return image;
  return new Uint8Array(Buffer.from(image, "base64"));
}

/**
 * An image with its caption or alt text (`text`) and metadata: a node like {@link TextNode}, so lists of
 * `NodeWithScore` may mix both. Synthesizers send it to vision models as an image block; text-only
 * paths (retrieval, embeddings, `context_only`) see its caption.
 * @example new ImageNode({ imagePath: "docs/chart.png", text: "Sales by quarter, 2026" })
 */
export class ImageNode extends TextNode {
  readonly image: Uint8Array | undefined;
  readonly imagePath: string | undefined;
  readonly imageUrl: string | undefined;
  readonly mediaType: string | undefined;
  readonly detail: ImageDetail | undefined;
  readonly width: number | undefined;
  readonly height: number | undefined;

  /**
   * @throws InvalidArgumentError unless exactly one of `image` (bytes or base64), `imagePath`, `imageUrl` (non-empty
   *   strings) is given
   */
  constructor(init: ImageNodeInit) {
    const {
      text = "",
      image,
      imagePath,
      imageUrl,
      mediaType,
      detail,
      width,
      height,
      ...rest
    } = optionsOf("init", init, "{ imagePath | imageUrl | image, text?, mediaType?, … }");
    super({ ...rest, text });
    const sources = [image, imagePath, imageUrl].filter((source) => source !== undefined);
    if (sources.length !== 1) {
      throw new InvalidArgumentError({
        parameter: "image",
        value: { image: image === undefined ? undefined : "…", imagePath, imageUrl },
        expected: "be exactly one of `image` (bytes or base64), `imagePath` or `imageUrl`",
        hint: "Give the image's bytes, its file path, or its URL, and only one of them.",
      });
    }
    if (image !== undefined && typeof image !== "string" && !(image instanceof Uint8Array)) {
      throw new InvalidArgumentError({
        parameter: "image",
        value: image,
        expected: "be the image's bytes (a Uint8Array or Buffer) or a base64 string",
        hint: "For a file on disk pass `imagePath`; for a URL, `imageUrl`.",
      });
    }
    for (const [parameter, value] of [
      ["imagePath", imagePath],
      ["imageUrl", imageUrl],
    ] as const) {
      if (value !== undefined && (typeof value !== "string" || value === "")) {
        throw new InvalidArgumentError({
          parameter,
          value,
          expected:
            parameter === "imagePath"
              ? "be a file path (a non-empty string)"
              : "be a URL (a non-empty string)",
        });
      }
    }
    if (detail !== undefined && !["low", "high", "auto"].includes(detail)) {
      throw new InvalidArgumentError({
        parameter: "detail",
        value: detail,
        expected: 'be "low", "high" or "auto"',
      });
    }
    this.image = decodeImage(image);
    this.imagePath = imagePath;
    this.imageUrl = imageUrl;
    this.mediaType =
      mediaType ?? mediaTypeFromPath(imagePath ?? imageUrl ?? "") ?? dataUrlMediaType(imageUrl);
    this.detail = detail;
    this.width = width;
    this.height = height;
    Object.defineProperty(this, marker, { value: true });
  }

  /** True for image nodes, also from another copy of the package (unlike `instanceof`). */
  static isInstance(value: unknown): value is ImageNode {
    return typeof value === "object" && value !== null && marker in value;
  }

  /** The image as a content block, with the caption (metadata lines included for `MetadataMode.LLM`) as `alt`. */
  toBlock(): ImageBlock {
    const alt = this.getContent(MetadataMode.NONE).trim();
    return {
      type: "image",
      ...(this.image ? { data: this.image } : {}),
      ...(this.imagePath !== undefined ? { path: this.imagePath } : {}),
      ...(this.imageUrl !== undefined ? { url: this.imageUrl } : {}),
      ...(this.mediaType !== undefined ? { mediaType: this.mediaType } : {}),
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      ...(this.width !== undefined ? { width: this.width } : {}),
      ...(this.height !== undefined ? { height: this.height } : {}),
      ...(alt !== "" ? { alt } : {}),
      nodeId: this.id,
    };
  }

  /** A copy with some fields replaced. */
  override with(changes: Partial<ImageNodeInit>): ImageNode {
    const { image, ...json } = this.toJSON();
    const source =
      "image" in changes || "imagePath" in changes || "imageUrl" in changes
        ? {}
        : { image: this.image, imagePath: this.imagePath, imageUrl: this.imageUrl };
    return new ImageNode({ ...json, ...source, ...changes });
  }

  /** Every field; the bytes as base64. */
  override toJSON(): Required<TextNodeInit> & Omit<ImageNodeInit, "image"> & { image?: string } {
    return {
      ...super.toJSON(),
      ...(this.image ? { image: Buffer.from(this.image).toString("base64") } : {}),
      ...(this.imagePath !== undefined ? { imagePath: this.imagePath } : {}),
      ...(this.imageUrl !== undefined ? { imageUrl: this.imageUrl } : {}),
      ...(this.mediaType !== undefined ? { mediaType: this.mediaType } : {}),
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      ...(this.width !== undefined ? { width: this.width } : {}),
      ...(this.height !== undefined ? { height: this.height } : {}),
    };
  }
}

function dataUrlMediaType(url: string | undefined): string | undefined {
  return url === undefined ? undefined : /^data:([^;,]+)[;,]/.exec(url)?.[1];
}
