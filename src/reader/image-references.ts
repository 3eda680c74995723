import { stat } from "node:fs/promises";
import path from "node:path";
import type { NodePostprocessor } from "../postprocessor/types.js";
import { IMAGE_EXTENSIONS, ImageNode } from "../schema/image-node.js";
import type { NodeWithScore } from "../schema/text-node.js";

/** An image a Markdown or HTML text references. */
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

/** Options of {@link withReferencedImages}. */
export interface ReferencedImagesOptions {
  /** Where relative `src`s of nodes without a `file_path` resolve. @default the working directory */
  baseDir?: string | undefined;
  /** Follow `http(s):` references as image URLs (sent as given, never fetched here). @default false */
  remote?: boolean | undefined;
}

/**
 * Each node followed by the images its text references, as {@link ImageNode}s with the alt text as caption,
 * so they travel with the chunk into synthesis. Relative paths resolve against the node's `file_path`;
 * references to missing files or non-image endings are left out. Nodes are never changed.
 * @example const nodes = await withReferencedImages(retrieved)
 */
export async function withReferencedImages(
  nodes: readonly NodeWithScore[],
  { baseDir = ".", remote = false }: ReferencedImagesOptions = {},
): Promise<NodeWithScore[]> {
  const result: NodeWithScore[] = [];
  for (const entry of nodes) {
    result.push(entry);
    if (ImageNode.isInstance(entry.node)) continue;
    const filePath = entry.node.metadata.file_path;
    const dir = typeof filePath === "string" ? path.dirname(filePath) : baseDir;
    for (const [index, reference] of findImageReferences(entry.node.text).entries()) {
      const image = await resolveReference(reference, dir, remote);
      if (!image) continue;
      const node = new ImageNode({
        id: `${entry.node.id}#image${index}`,
        text: reference.alt,
        ...image,
        metadata: { referenced_by: entry.node.id, src: reference.src },
        excludedLlmMetadataKeys: ["referenced_by", "src"],
        excludedEmbedMetadataKeys: ["referenced_by", "src"],
      });
      result.push(entry.score === undefined ? { node } : { node, score: entry.score });
    }
  }
  return result;
}

async function resolveReference(
  reference: ImageReference,
  dir: string,
  remote: boolean,
): Promise<{ imagePath: string } | { imageUrl: string } | undefined> {
  if (/^https?:\/\//i.test(reference.src)) return remote ? { imageUrl: reference.src } : undefined;
  if (reference.src.startsWith("data:image/")) return { imageUrl: reference.src };
  const clean = decodeURIComponent(reference.src.replace(/[?#].*$/, ""));
  const extension = path.extname(clean).slice(1).toLowerCase();
  if (!IMAGE_EXTENSIONS.includes(extension)) return undefined;
  const imagePath = path.join(dir, clean);
  try {
    return (await stat(imagePath)).isFile() ? { imagePath } : undefined;
  } catch {
    return undefined;
  }
}

/** {@link withReferencedImages} as a node postprocessor, for the query engine's `nodePostprocessors`. */
export function referencedImagesPostprocessor(options: ReferencedImagesOptions = {}): NodePostprocessor {
  return {
    name: "ReferencedImages",
    postprocessNodes: (nodes) => withReferencedImages(nodes, options),
  };
}
