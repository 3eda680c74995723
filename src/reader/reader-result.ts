import type { DocumentBlock } from "./formats/types.js";

// What a format reader returns is checked before it becomes a document: readers are plugins (a user's, or one run in
// a worker thread), and their metadata goes into every chunk's text.

/**
 * A reader's result, checked: its blocks (a list of objects with text, else an error naming the format) and its
 * metadata kept plain (string values cut to a length, finite numbers; anything else dropped).
 */
export function checkedReaderResult(
  result: { blocks?: unknown; metadata?: unknown } | undefined,
  format: string,
): { blocks: DocumentBlock[]; metadata: Record<string, string | number> } {
  return { blocks: checkBlocks(result?.blocks, format), metadata: plainMetadata(result?.metadata) };
}

function checkBlocks(blocks: unknown, format: string): DocumentBlock[] {
  if (
    !Array.isArray(blocks) ||
    blocks.some((block) => typeof block !== "object" || block === null || typeof block.text !== "string")
  ) {
    throw new Error(`the ${format} reader returned no list of blocks with text (got ${typeof blocks})`);
  }
  return blocks as DocumentBlock[];
}

/** `metadata` without the keys `taken` has (the file's own fields win over a reader's). */
export function withoutKeys(
  metadata: Record<string, string | number>,
  taken: Record<string, unknown>,
): Record<string, string | number> {
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !Object.hasOwn(taken, key)));
}

/**
 * A reader's metadata goes into every chunk's text (a title is shown to the embedder and the LLM), so a string
 * value is cut to {@link MAX_METADATA_CHARS} characters at a word boundary: a document whose first heading is a
 * paragraph long left no room in its chunks for text (every chunk a word or two beside the title).
 */
const MAX_METADATA_CHARS = 200;

function plainMetadata(metadata: unknown): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (typeof metadata !== "object" || metadata === null) return out;
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value === "string") out[key] = shortened(value);
    else if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
  }
  return out;
}

function shortened(value: string): string {
  if (value.length <= MAX_METADATA_CHARS) return value;
  const cut = value.slice(0, MAX_METADATA_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > MAX_METADATA_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}
