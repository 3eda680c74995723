import type { DocumentBlock } from "../reader/formats/types.js";
import { LOCATION_KEY, type LocationRange, type NodeLocation } from "../schema/node-location.js";
import { TextNode } from "../schema/text-node.js";
import { textLocation } from "./text-location.js";

// The nodes a splitter makes, each with its place in the document (`metadata.location`, a NodeLocation), hidden from
// the LLM and the embedder: for a structured document, where its blocks were; for plain text, its lines.

/**
 * Chunk `index` of `document`: `text`, made of `blocks` under the headings `headingPath`, placed at the blocks' lines,
 * pages, cells, slides and rows.
 */
export function blockNode(
  document: TextNode,
  index: number,
  { text, blocks, headingPath }: { text: string; blocks: readonly DocumentBlock[]; headingPath: string[] },
): TextNode {
  const location: NodeLocation = { ...fileOf(document), headingPath, ...ranges(blocks) };
  return new TextNode({ id: `${document.id}#${index}`, text, ...located(document, location) });
}

/** The nodes a plain splitter made of `document`, each placed at the lines its characters span. */
export function withLines(document: TextNode, nodes: readonly TextNode[]): TextNode[] {
  const locate = textLocation(document.text);
  return nodes.map((node) => {
    const { start_char_idx: start, end_char_idx: end } = node.metadata;
    const lines = typeof start === "number" && typeof end === "number" ? locate(start, end) : undefined;
    return node.with(located(node, { ...fileOf(document), ...(lines ? { lines } : {}) }));
  });
}

/** `node`'s metadata with `location`, which the LLM and the embedder do not see. */
function located(
  node: TextNode,
  location: NodeLocation,
): Pick<TextNode, "metadata" | "excludedEmbedMetadataKeys" | "excludedLlmMetadataKeys"> {
  return {
    metadata: { ...node.metadata, [LOCATION_KEY]: location },
    excludedEmbedMetadataKeys: [...node.excludedEmbedMetadataKeys, LOCATION_KEY],
    excludedLlmMetadataKeys: [...node.excludedLlmMetadataKeys, LOCATION_KEY],
  };
}

function ranges(
  blocks: readonly DocumentBlock[],
): Pick<NodeLocation, "lines" | "pages" | "cells" | "slides" | "rows"> {
  const lines = span(blocks.map((block) => block.lines));
  const at = (number: number | undefined) => (number ? { start: number, end: number } : undefined);
  const pages = span(blocks.map((block) => at(block.page)));
  const cells = span(blocks.map((block) => at(block.cell)));
  const slides = span(blocks.map((block) => at(block.slide)));
  const rows = span(blocks.map((block) => at(block.row)));
  return {
    ...(lines ? { lines } : {}),
    ...(pages ? { pages } : {}),
    ...(cells ? { cells } : {}),
    ...(slides ? { slides } : {}),
    ...(rows ? { rows } : {}),
  };
}

function span(found: ReadonlyArray<LocationRange | undefined>): LocationRange | undefined {
  let result: LocationRange | undefined;
  for (const range of found) {
    if (!range) continue;
    result = result
      ? { start: Math.min(result.start, range.start), end: Math.max(result.end, range.end) }
      : { ...range };
  }
  return result;
}

function fileOf(document: TextNode): Pick<NodeLocation, "file"> {
  const file = document.metadata.file_path;
  return typeof file === "string" ? { file } : {};
}
