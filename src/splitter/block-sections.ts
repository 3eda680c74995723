import type { DocumentBlock } from "../reader/formats/types.js";

/** A heading and everything under it, down to the next heading of its depth or higher. */
export interface Section {
  /** Undefined for the text before a document's first heading. */
  heading: DocumentBlock | undefined;
  /** The blocks between the heading and its first subsection. */
  body: DocumentBlock[];
  children: Section[];
  /** The headings above this section, outermost first. */
  parentPath: DocumentBlock[];
  /** {@link parentPath} and the section's own heading. */
  path: DocumentBlock[];
}

/** A document's blocks as a tree of sections: the text before the first heading, then the top-level sections. */
export function sectionsOf(blocks: readonly DocumentBlock[]): Section[] {
  const top: Section = { heading: undefined, body: [], children: [], parentPath: [], path: [] };
  const open: Array<{ depth: number; section: Section }> = [{ depth: 0, section: top }];
  for (const block of blocks) {
    if (block.kind !== "heading") {
      (open[open.length - 1] as { section: Section }).section.body.push(block);
      continue;
    }
    const depth = Math.min(6, Math.max(1, block.depth ?? 1));
    while (open.length > 1 && (open[open.length - 1] as { depth: number }).depth >= depth) open.pop();
    const parent = (open[open.length - 1] as { section: Section }).section;
    const section: Section = {
      heading: block,
      body: [],
      children: [],
      parentPath: parent.path,
      path: [...parent.path, block],
    };
    parent.children.push(section);
    open.push({ depth, section });
  }
  const lead: Section = { ...top, children: [] };
  return [lead, ...top.children];
}

/** A section's blocks in document order: its heading, its body, then its subsections'. */
export function sectionBlocks(section: Section): DocumentBlock[] {
  const blocks = section.heading ? [section.heading, ...section.body] : [...section.body];
  for (const child of section.children) blocks.push(...sectionBlocks(child));
  return blocks;
}

/**
 * A block as chunk text, in Markdown (the form ragsynth's BM25 and extractive answers read structure from):
 * a heading as `#` line, code fenced with its language, a list item after `- `, a paragraph or table row as is.
 */
export function renderBlock(block: DocumentBlock): string {
  switch (block.kind) {
    case "heading":
      return `${"#".repeat(Math.min(6, Math.max(1, block.depth ?? 1)))} ${block.text}`;
    case "code": {
      const fence = block.text.includes("```") ? "~~~~" : "```";
      return `${fence}${block.language ?? ""}\n${block.text}\n${fence}`;
    }
    case "list_item":
      return `- ${block.text.replace(/\n/g, "\n  ")}`;
    default:
      return block.text;
  }
}

/** Blocks as chunk text: list items and table rows in a run one per line, other blocks a blank line apart. */
export function renderBlocks(blocks: readonly DocumentBlock[]): string {
  let text = "";
  let previous: DocumentBlock | undefined;
  for (const block of blocks) {
    if (previous) text += blockJoiner(previous, block);
    text += renderBlock(block);
    previous = block;
  }
  return text;
}

/** What {@link renderBlocks} puts between two neighbouring blocks: `"\n"` in a run of list items or table rows. */
export function blockJoiner(previous: DocumentBlock, block: DocumentBlock): "\n" | "\n\n" {
  const sameRun = previous.kind === block.kind && (block.kind === "list_item" || block.kind === "table_row");
  return sameRun ? "\n" : "\n\n";
}
