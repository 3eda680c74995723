import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { formatNodeLocation, getNodeLocation } from "./node-location.js";
import type { NodeWithScore } from "./text-node.js";

// How a node names where it came from, for people: its file, its place in it, a link to it.

/**
 * The metadata key of a node that stands for copies of its text (`collapseCopies`): the files (or node ids) of the
 * copies, best ranked first. Hidden from the LLM and the embedder.
 */
export const SAME_TEXT_KEY = "same_text_in";

/** How many other places hold the node's text ({@link SAME_TEXT_KEY}), 0 when none is known. */
export function copyCount(node: NodeWithScore["node"]): number {
  const copies = node.metadata[SAME_TEXT_KEY];
  return Array.isArray(copies) ? copies.length : 0;
}

/** The file a node came from (its path as the user gave it, from the reader's metadata), or its id. */
export function sourceName(node: NodeWithScore["node"]): string {
  const metadata = node.metadata;
  for (const key of ["file_path", "filePath", "file_name", "fileName", "path", "source"]) {
    const value = metadata[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return node.id;
}

/**
 * The file a node came from and its place in it, as its `metadata.location` tells:
 * `guide.md:120–168 › Configuration › Timeouts`, `spec.pdf p. 12 › 2.3 Glob weights`; for a node without one, the
 * file and the line a reader recorded (`notes.txt:12`), or the file alone.
 */
export function sourceLabel(node: NodeWithScore["node"]): string {
  const location = getNodeLocation(node);
  const label = location
    ? formatNodeLocation(location, sourceName(node))
    : `${sourceName(node)}${sourceLocation(node)}`;
  // One of several pieces a node was cut into (citation sources): `guide.md:12–30 › Setup · part 1 of 2`.
  const part = node.metadata.source_part;
  return typeof part === "string" && part !== "" ? `${label} · part ${part}` : label;
}

/** Where in the file the node starts, when a reader recorded it as a line number. */
function sourceLocation(node: NodeWithScore["node"]): string {
  const metadata = node.metadata;
  for (const key of ["line", "start_line", "startLine"]) {
    const value = metadata[key];
    if (typeof value === "number") return `:${value}`;
  }
  return "";
}

/** A `file:` URL of the node's source file, `#L<line>` when its first line is known. */
export function sourceHref(node: NodeWithScore["node"]): string | undefined {
  const location = getNodeLocation(node);
  if (!location?.file) return undefined;
  const line = location.lines ? `#L${location.lines.start}` : "";
  return `${pathToFileURL(resolve(location.file)).href}${line}`;
}

/** A retrieved node as JSON (`ragsynth ask --json` prints its sources so): `location` is its place (file, heading path, lines or pages), or null. */
export function sourceToJSON(source: NodeWithScore, index: number) {
  return {
    rank: index + 1,
    score: source.score ?? null,
    file: sourceName(source.node),
    location: getNodeLocation(source.node) ?? null,
    label: sourceLabel(source.node),
    nodeId: source.node.id,
    metadata: source.node.metadata,
    text: source.node.text,
  };
}
