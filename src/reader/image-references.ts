import path from "node:path";
import { fileURLToPath } from "node:url";
import { optionsOf } from "../errors/check-options.js";
import { checkNodesWithScore } from "../schema/check-text-nodes.js";
import type { ImageLimits } from "../schema/image-bytes.js";
import { ImageNode } from "../schema/image-node.js";
import type { NodeWithScore, TextNode } from "../schema/text-node.js";
import { type GuardImagesResult, guardImages, type SkippedImage } from "./image-guard.js";
import { realRoots } from "./inside-roots.js";

/** An image a Markdown or HTML text references. */
const IMAGE_REFERENCE = /!\[[^\]]*\]\(|<img\b/i;

/** Whether a node is an image or its text references one (a Markdown image or an `<img>` tag). */
export function holdsImage(node: TextNode): boolean {
  return ImageNode.isInstance(node) || IMAGE_REFERENCE.test(node.text);
}

export interface ImageReference {
  /** The `src` as written (`img/chart.png`, `https://…`). */
  src: string;
  /** The alt text (or `title`), possibly empty. */
  alt: string;
}

const MARKDOWN_IMAGE = /!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"([^"]*)")?\s*\)/g;
const HTML_IMAGE = /<img\b[^>]*>/gi;

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** The images a text references, in order of appearance: `![alt](src "title")` and `<img src alt>`. */
export function findImageReferences(text: string): ImageReference[] {
  const found: Array<ImageReference & { at: number }> = [];
  for (const match of text.matchAll(MARKDOWN_IMAGE)) {
    found.push({ src: match[2] as string, alt: (match[1] || match[3] || "").trim(), at: match.index });
  }
  for (const match of text.matchAll(HTML_IMAGE)) {
    const src = attribute(match[0], "src");
    if (src)
      found.push({
        src,
        alt: (attribute(match[0], "alt") ?? attribute(match[0], "title") ?? "").trim(),
        at: match.index,
      });
  }
  return found.sort((a, b) => a.at - b.at).map(({ src, alt }) => ({ src, alt }));
}

/**
 * A text as a place name (a heading in a citation's path): its Markdown and HTML images left out, or, when the
 * text is nothing but images, their alt texts. `better-sqlite3 ![Build Status](https://…/badge.svg)` names
 * the section `better-sqlite3`; `![Logo](logo.png)` names it `Logo`.
 */
export function withoutImages(text: string): string {
  if (!IMAGE_REFERENCE.test(text)) return text;
  const words = (value: string) => value.replace(/\s+/g, " ").trim();
  const stripped = words(text.replace(MARKDOWN_IMAGE, "").replace(HTML_IMAGE, ""));
  if (stripped !== "") return stripped;
  const alts = words(
    findImageReferences(text)
      .map((image) => image.alt)
      .join(" "),
  );
  return alts === "" ? words(text) : alts;
}

/** Options of {@link withReferencedImages}. */
export interface ReferencedImagesOptions {
  /** Where relative `src`s of nodes without a `file_path`, and relative `file_path`s, resolve. @default the working directory */
  baseDir?: string | undefined;
  /**
   * The folders (or files) images may come from: a reference whose real path (every symbolic link followed)
   * lies outside them is left out, as are `/proc`, devices, FIFOs and sockets. @default [baseDir]
   */
  roots?: readonly string[] | undefined;
  /** Size and count caps for the images kept. @default OpenAI's published limits (`OPENAI_IMAGE_LIMITS`) */
  limits?: ImageLimits | undefined;
  /** Follow `http(s):` references as image URLs (sent as given, never fetched here). @default false */
  remote?: boolean | undefined;
  /** Hears each image left out, and why (the answer then comes from the text). */
  onSkip?: ((skipped: SkippedImage) => void) | undefined;
}

/**
 * Each node followed by the images its text references, as {@link ImageNode}s with the alt text as caption,
 * so they travel with the chunk into synthesis. Relative paths resolve against the node's `file_path`. Every
 * image, referenced or already in `nodes`, passes {@link guardImages}: inside `roots`, an image by its magic
 * bytes, within the size caps; kept images hold their bytes. The others are left out and told to `onSkip`.
 * Nodes are never changed.
 * @example const nodes = await withReferencedImages(retrieved, { roots: ["docs"] })
 */
export async function withReferencedImages(
  nodes: readonly NodeWithScore[],
  options: ReferencedImagesOptions = {},
): Promise<NodeWithScore[]> {
  checkNodesWithScore(nodes, "nodes");
  const given = optionsOf("options", options, "{ roots?, limits?, onSkip? }");
  const { nodes: kept, skipped } = await loadReferencedImages(nodes, given);
  for (const entry of skipped) given.onSkip?.(entry);
  return kept;
}

/** {@link withReferencedImages} with the images left out and the count kept, for callers that report them. */
export async function loadReferencedImages(
  nodes: readonly NodeWithScore[],
  { baseDir = ".", roots, limits, remote = false }: ReferencedImagesOptions = {},
): Promise<GuardImagesResult> {
  const found: NodeWithScore[] = [];
  const skipped: SkippedImage[] = [];
  for (const entry of nodes) {
    found.push(entry);
    if (ImageNode.isInstance(entry.node)) continue;
    const filePath = entry.node.metadata.file_path;
    const dir = path.resolve(baseDir, typeof filePath === "string" ? path.dirname(filePath) : ".");
    for (const [index, reference] of findImageReferences(entry.node.text).entries()) {
      const image = resolveReference(reference.src, dir);
      if ("reason" in image) {
        skipped.push({
          src: reference.src,
          nodeId: entry.node.id,
          code: "bad_reference",
          reason: image.reason,
        });
        continue;
      }
      const node = new ImageNode({
        id: `${entry.node.id}#image${index}`,
        text: reference.alt,
        ...image,
        metadata: { referenced_by: entry.node.id, src: reference.src },
        excludedLlmMetadataKeys: ["referenced_by", "src"],
        excludedEmbedMetadataKeys: ["referenced_by", "src"],
      });
      found.push(entry.score === undefined ? { node } : { node, score: entry.score });
    }
  }
  const guarded = await guardImages(found, {
    roots: await realRoots((roots ?? [baseDir]).map((root) => path.resolve(baseDir, root))),
    limits,
    remote,
  });
  return { ...guarded, skipped: [...skipped, ...guarded.skipped] };
}

/**
 * Where a reference points, read as a browser reads a link: `?query` and `#fragment` dropped, `%xx` decoded,
 * `\` as `/`, `file:` URLs as their path. Absolute paths and `~` stay what they are (no home folder expanded);
 * whether the file may be read is for the roots to decide.
 */
function resolveReference(
  src: string,
  dir: string,
): { imagePath: string } | { imageUrl: string } | { reason: string } {
  if (/^(https?|data):/i.test(src)) return { imageUrl: src };
  if (/^file:/i.test(src)) {
    try {
      return { imagePath: fileURLToPath(new URL(src.replace(/\\/g, "/"))) };
    } catch {
      return { reason: "a file: URL that names no local file" };
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(src) && !/^[a-z]:[\\/]/i.test(src)) {
    return { reason: "a URL scheme that is not read (only files, data: and http(s): URLs)" };
  }
  let clean: string;
  try {
    clean = decodeURIComponent(src.replace(/[?#].*$/s, ""));
  } catch {
    return { reason: "a malformed %-escape" };
  }
  if (clean.includes("\0")) return { reason: "a NUL character in the path" };
  return { imagePath: path.resolve(dir, clean.replace(/\\/g, "/")) };
}
