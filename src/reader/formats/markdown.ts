import { setImmediate as nextTurn } from "node:timers/promises";
import { markdownItBlocks } from "./markdown-it-blocks.js";
import { isPathologicallyNested, iterateMarkdownSegments } from "./markdown-segments.js";
import { decodeText, paragraphBlocks } from "./plain-text.js";
import { type DocumentBlock, type DocumentReader, ReaderSkipError, type ReadFileResult } from "./types.js";

/**
 * Parses Markdown text (CommonMark with GitHub's tables, task lists, strikethrough and footnotes; YAML/TOML front
 * matter recognised and left out) into blocks with their line ranges. `\r\n` line endings count as one line break.
 * Text nested deeper than the parser follows is read as paragraphs.
 */
export function markdownBlocks(text: string, lineOffset = 0): DocumentBlock[] {
  return markdownItBlocks(text, { lineOffset }) ?? paragraphBlocks(text, lineOffset + 1);
}

// Segments of this many characters parse in well under 50 ms each on an idle machine.
const SEGMENT_CHARS = 64 * 1024;

/**
 * {@link markdownBlocks} for text of any size: parsed in segments cut at blank lines (see `markdownSegments`),
 * yielding to the event loop between them (Ctrl-C, progress), with each segment nested past what a parser does in
 * reasonable time read as plain paragraphs instead (counted in `nestedSegments`).
 */
export async function markdownBlocksInSegments(
  text: string,
  signal?: AbortSignal,
): Promise<{ blocks: DocumentBlock[]; nestedSegments: number }> {
  const blocks: DocumentBlock[] = [];
  let nestedSegments = 0;
  let index = 0;
  for (const segment of iterateMarkdownSegments(text, SEGMENT_CHARS)) {
    if (index++ > 0) {
      await nextTurn();
      signal?.throwIfAborted();
    }
    const parsed = isPathologicallyNested(segment.text)
      ? undefined
      : markdownItBlocks(segment.text, { lineOffset: segment.lineOffset });
    if (parsed === undefined) nestedSegments++;
    for (const block of parsed ?? paragraphBlocks(segment.text, segment.lineOffset + 1)) blocks.push(block);
  }
  return { blocks, nestedSegments };
}

/**
 * The Markdown reader (`.md`, `.markdown`), on `markdown-it` with GFM tables and footnotes: headings with
 * their depth, paragraphs, code with its language, list items and table rows, each with its 1-based line range.
 * The first heading of depth 1 becomes the `title` metadata.
 * @throws ReaderSkipError `binary` / `invalid_utf8` (see `decodeText`), `empty` for a file without text.
 */
export const markdownReader: DocumentReader = {
  format: "markdown",
  extensions: [".md", ".markdown"],
  async read({ bytes, path, signal }): Promise<ReadFileResult> {
    const { blocks, nestedSegments } = await markdownBlocksInSegments(decodeText(bytes, path), signal);
    if (blocks.length === 0) throw new ReaderSkipError("empty", "no text besides markup and front matter");
    const title = blocks.find((block) => block.kind === "heading" && block.depth === 1)?.text;
    const metadata = {
      ...(title ? { title } : {}),
      ...(nestedSegments > 0 ? { markdown_nested_as_text: nestedSegments } : {}),
    };
    return Object.keys(metadata).length > 0 ? { blocks, metadata } : { blocks };
  },
};
