import { markdownToBlocks } from "./mdast-blocks.js";
import { decodeText } from "./plain-text.js";
import type { DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

/**
 * Reads MDX (`.mdx`) with micromark's MDX extensions, as `remark-mdx` does: imports, exports and `{expressions}` are
 * removed, text inside JSX components is kept, and headings, lists, code and tables become blocks with their lines.
 * MDX is strict (one unclosed `<Tag>` fails the whole file), so a file MDX cannot parse is read as Markdown instead,
 * with `import`/`export` lines dropped and tags stripped; `metadata.mdx_fallback` then says why.
 */
export const mdxReader: DocumentReader = {
  format: "mdx",
  extensions: [".mdx"],
  async read({ bytes, path, signal }: ReaderInput): Promise<ReadFileResult> {
    const text = decodeText(bytes, path);
    signal?.throwIfAborted();
    let result: ReadFileResult;
    try {
      result = { blocks: await markdownToBlocks(text, { mdx: true }) };
    } catch (error) {
      signal?.throwIfAborted();
      const reason = error instanceof Error ? error.message : String(error);
      result = {
        blocks: await markdownToBlocks(withoutEsm(text)),
        metadata: { mdx_fallback: `not valid MDX (${reason.slice(0, 200)}); read as Markdown` },
      };
    }
    if (result.blocks.length === 0) throw new ReaderSkipError("empty", `${path}: no text outside MDX code.`);
    return result;
  },
};

/**
 * Blanks top-level `import`/`export` statements (up to the next blank line) for the Markdown fallback, keeping
 * the line count so line ranges still point into the file. Lines inside fenced code are left alone.
 */
function withoutEsm(text: string): string {
  const lines = text.split("\n");
  let fence: string | undefined;
  let inEsm = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker?.startsWith(fence)) fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    if (line.trim() === "") inEsm = false;
    else if (/^(import|export)\s/.test(line)) inEsm = true;
    if (inEsm) lines[index] = "";
  }
  return lines.join("\n");
}
