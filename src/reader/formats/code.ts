import { CODE_LANGUAGES, codeLanguageOf } from "./code-languages.js";
import { decodeText } from "./plain-text.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

// A line that closes a unit rather than opening one, even at column 0 after a blank line.
const CLOSER = /^[}\])]|^(end|fi|done|esac|EOF)\b/;

/**
 * Reads source code (any ending in the code-language table): one `code` block per top-level unit, with the
 * language on the blocks and in metadata. A unit starts at a line at column 0 that follows a blank line, so a
 * function or class stays whole with its doc comment above it, however long (the chunker splits it only if it
 * must); blank lines inside indented bodies do not split.
 */
export const codeReader: DocumentReader = {
  format: "code",
  extensions: Object.keys(CODE_LANGUAGES),
  read({ bytes, path }: ReaderInput): ReadFileResult {
    const language = codeLanguageOf(path) ?? "text";
    const blocks = codeBlocks(decodeText(bytes, path), language);
    if (blocks.length === 0)
      throw new ReaderSkipError("empty", `${path}: no code (empty or only whitespace).`);
    return { blocks, metadata: { language } };
  },
};

/** Splits source text into top-level units, each a code block with its 1-based line range. */
export function codeBlocks(text: string, language: string): DocumentBlock[] {
  const lines = text.split("\n");
  const blocks: DocumentBlock[] = [];
  let start = -1;
  let lastContent = -1;
  const flush = () => {
    if (start === -1) return;
    blocks.push({
      kind: "code",
      text: lines.slice(start, lastContent + 1).join("\n"),
      language,
      lines: { start: start + 1, end: lastContent + 1 },
    });
    start = -1;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.trim() === "") continue;
    const opensUnit = lastContent < index - 1 && /^\S/.test(line) && !CLOSER.test(line);
    if (opensUnit) flush();
    if (start === -1) start = index;
    lastContent = index;
  }
  flush();
  return blocks;
}
