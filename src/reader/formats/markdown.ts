import { fromMarkdown } from "mdast-util-from-markdown";
import { frontmatterFromMarkdown } from "mdast-util-frontmatter";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { frontmatter } from "micromark-extension-frontmatter";
import { gfm } from "micromark-extension-gfm";
import { mdastToBlocks } from "./mdast-blocks.js";
import { decodeText } from "./plain-text.js";
import { type DocumentBlock, type DocumentReader, ReaderSkipError, type ReadFileResult } from "./types.js";

/**
 * Parses Markdown text (CommonMark with GitHub's tables, task lists, strikethrough and footnotes; YAML/TOML front
 * matter recognised and left out) into blocks with their line ranges. `\r\n` line endings count as one line break.
 */
export function markdownBlocks(text: string): DocumentBlock[] {
  const tree = fromMarkdown(text, {
    extensions: [gfm(), frontmatter(["yaml", "toml"])],
    mdastExtensions: [gfmFromMarkdown(), frontmatterFromMarkdown(["yaml", "toml"])],
  });
  return mdastToBlocks(tree);
}

/**
 * The Markdown reader (`.md`, `.markdown`), on `mdast-util-from-markdown` with the GFM extensions: headings with
 * their depth, paragraphs, code with its language, list items and table rows, each with its 1-based line range.
 * The first heading of depth 1 becomes the `title` metadata.
 * @throws ReaderSkipError `binary` / `invalid_utf8` (see `decodeText`), `empty` for a file without text.
 */
export const markdownReader: DocumentReader = {
  format: "markdown",
  extensions: [".md", ".markdown"],
  read({ bytes, path }): ReadFileResult {
    const blocks = markdownBlocks(decodeText(bytes, path));
    if (blocks.length === 0) throw new ReaderSkipError("empty", "no text besides markup and front matter");
    const title = blocks.find((block) => block.kind === "heading" && block.depth === 1)?.text;
    return { blocks, ...(title ? { metadata: { title } } : {}) };
  },
};
