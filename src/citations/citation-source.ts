import { checkArrayOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { NodeWithScore } from "../schema/text-node.js";

/** Where a citation piece lies: the node's own `location` when it has one, else its file and character range. */
export interface CitationLocation {
  /** `metadata.file_path` (or `file_name`) of the retrieved node, when it has one. */
  filePath?: string;
  /** Character range of the piece within the retrieved node's text, when the piece was found in it. */
  startChar?: number;
  endChar?: number;
  /** The node's own location (`node.metadata.location`), kept as given, when the reader set one. */
  nodeLocation?: unknown;
}

/** One numbered `Source N:` piece the model was shown. */
export interface CitationSource {
  /** 1-based, global across the whole query (every refine round and tree level sees the same numbers). */
  number: number;
  /** The piece's text, without its `Source N:` label. */
  text: string;
  /** The retrieved node the piece was cut from. */
  node: NodeWithScore;
  location: CitationLocation;
}

/**
 * Throws an {@link InvalidArgumentError} unless `value` is a {@link CitationSource} (`{ number, text, node,
 * location }`, as `sourcesOf` and a citation response give them): for plain JavaScript callers.
 */
export function checkCitationSource(value: unknown, parameter: string): asserts value is CitationSource {
  const source = value as Partial<Record<keyof CitationSource, unknown>> | null | undefined;
  if (
    typeof source !== "object" ||
    source === null ||
    !Number.isInteger(source.number) ||
    typeof source.text !== "string" ||
    typeof source.node !== "object" ||
    source.node === null ||
    typeof source.location !== "object" ||
    source.location === null
  ) {
    throw new InvalidArgumentError({
      parameter,
      value,
      expected: "be a CitationSource ({ number, text, node, location })",
      hint: "Take them from a citation response's sources, or engine.sourcesOf(response.sourceNodes).",
    });
  }
}

/** {@link checkCitationSource} for an array and each of its entries (`sources`, then `sources[index]`). */
export function checkCitationSources(
  value: unknown,
  parameter: string,
): asserts value is readonly CitationSource[] {
  checkArrayOf(parameter, value, "be an array of CitationSource", checkCitationSource);
}

/** The location of a piece of `node` spanning `[startChar, endChar)` of its text. */
export function locate(
  node: NodeWithScore,
  startChar: number | undefined,
  endChar: number | undefined,
): CitationLocation {
  const { metadata } = node.node;
  const location: CitationLocation = {};
  const filePath = metadata.file_path ?? metadata.file_name;
  if (typeof filePath === "string") location.filePath = filePath;
  if (startChar !== undefined && endChar !== undefined) {
    location.startChar = startChar;
    location.endChar = endChar;
  }
  if (metadata.location !== undefined) location.nodeLocation = metadata.location;
  return location;
}

/** A short label for a source: `[2] spec.md chars 120–480`. */
export function formatSource(source: CitationSource): string {
  checkCitationSource(source, "source");
  const { filePath, startChar, endChar } = source.location;
  const where = [filePath ?? source.node.node.id];
  if (startChar !== undefined && endChar !== undefined) where.push(`chars ${startChar}–${endChar}`);
  return `[${source.number}] ${where.join(" ")}`;
}

/**
 * The numbered pieces as retrieved rows: row N is `Source N`, its text without the label, its node's metadata and
 * score (so a list of sources, on a terminal or a page, numbers them as the answer's `[N]` does). A node cut into
 * several pieces gives each row `metadata.source_part` (`"1 of 2"`), so their labels differ where the node's place
 * alone would print twice.
 */
export function citationSourceRows(sources: readonly CitationSource[]): NodeWithScore[] {
  const pieces = new Map<NodeWithScore, number>();
  for (const source of sources) pieces.set(source.node, (pieces.get(source.node) ?? 0) + 1);
  const seen = new Map<NodeWithScore, number>();
  return sources.map((source) => {
    const count = pieces.get(source.node) ?? 1;
    const part = (seen.get(source.node) ?? 0) + 1;
    seen.set(source.node, part);
    const metadata =
      count > 1 ? { ...source.node.node.metadata, source_part: `${part} of ${count}` } : undefined;
    const node = source.node.node.with(metadata ? { text: source.text, metadata } : { text: source.text });
    return source.node.score === undefined ? { node } : { node, score: source.node.score };
  });
}
