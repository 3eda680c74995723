import type { MarkdownIt, Token } from "markdown-it";
import { collapse, htmlText, inlineCode } from "./markdown-inline.js";
import { loadMarkdownIt } from "./markdown-it-loader.js";
import type { DocumentBlock } from "./types.js";

// Markdown → blocks on markdown-it (CommonMark with GFM tables and strikethrough; footnotes by its footnote
// plugin). markdown-it parses ~10× faster than micromark + mdast-util-from-markdown, and its block tokens carry
// their source lines (`token.map`), which is all a block needs. Internal: readers call it, the rest of ragsynth
// only sees blocks.

// markdown-it stops reading a document where its nesting passes this (it drops the rest): such text is left
// to the caller to read as paragraphs (see `markdownItBlocks`' `undefined`).
const MAX_NESTING = 100;
// YAML (`---`) or TOML (`+++`) front matter, at the very start only and closed (as micromark-extension-frontmatter).
const FRONT_MATTER = /^(-{3}|\+{3})[ \t]*\r?\n(?:[\s\S]*?\r?\n)?\1[ \t]*(?:\r?\n|$)/;
const TASK = /^\[([ xX])\][ \t]+/;

let parser: MarkdownIt | undefined;

function markdownIt(): MarkdownIt {
  if (parser) return parser;
  const { markdownIt: markdownItParser, footnote } = loadMarkdownIt();
  parser = markdownItParser("default", { html: true, linkify: false, maxNesting: MAX_NESTING }).use(footnote);
  // Footnote definitions stay where they are written (the plugin would move them to the end), `^[inline]` notes
  // are not GFM; links and images keep their destination as written (no percent-encoding, no URL filter: the
  // text is read, never rendered).
  parser.core.ruler.disable(["footnote_tail"]);
  parser.inline.ruler.disable(["footnote_inline"]);
  parser.normalizeLink = (url) => url;
  parser.normalizeLinkText = (url) => url;
  parser.validateLink = () => true;
  return parser;
}

/** Options of {@link markdownItBlocks}. */
export interface MarkdownItBlocksOptions {
  /** Added to every line number: the line of the source the parsed text starts on, less one. @default 0 */
  lineOffset?: number;
  /** Set on every block (notebook readers: the cell the Markdown came from). */
  cell?: number;
  /** Give blocks `lines` (a notebook cell's lines are not the file's). @default true */
  withLines?: boolean;
}

/**
 * The blocks of Markdown text, in document order: headings (with depth), paragraphs, code (with its language),
 * list items (nested items are blocks of their own), table rows (cells joined by `" | "`), each with its 1-based
 * line range. Inline markup is dropped (`**a**` → `a`, `[text](url)` → `text`), except inline code, kept in
 * backticks, and images, kept as `![alt](src)`. HTML keeps its text without tags (an `<img>` becomes
 * `![alt](src)`); front matter, definitions and thematic breaks are left out. `undefined` when the text nests
 * deeper than the parser follows (the caller reads it as paragraphs instead).
 */
export function markdownItBlocks(
  text: string,
  { lineOffset = 0, cell, withLines = true }: MarkdownItBlocksOptions = {},
): DocumentBlock[] | undefined {
  const tokens = markdownIt().parse(withoutFrontMatter(text), {});
  if (tokens.some((token) => token.level >= MAX_NESTING - 1)) return undefined;
  const closeOf = matchingCloses(tokens);
  const blocks: DocumentBlock[] = [];
  const push = (block: DocumentBlock, first: number, last: number): void => {
    if (block.text.trim() === "" && block.kind !== "code") return;
    if (withLines) block.lines = { start: first + 1 + lineOffset, end: last + lineOffset };
    if (cell !== undefined) block.cell = cell;
    blocks.push(block);
  };

  const visit = (from: number, to: number): void => {
    for (let index = from; index < to; index = (closeOf[index] as number) + 1) {
      const token = tokens[index] as Token;
      const [first, last] = token.map ?? [0, 0];
      switch (token.type) {
        case "heading_open":
          push(
            { kind: "heading", depth: Number(token.tag.slice(1)), text: collapse(inline(tokens[index + 1])) },
            first,
            last,
          );
          break;
        case "paragraph_open":
          push({ kind: "paragraph", text: inline(tokens[index + 1]).trim() }, first, last);
          break;
        case "fence":
        case "code_block":
          push(codeBlock(token), first, last);
          break;
        case "html_block":
          push({ kind: "paragraph", text: htmlText(token.content) }, first, last);
          break;
        case "list_item_open":
          visitListItem(index);
          break;
        case "table_open":
          for (let row = index; row < (closeOf[index] as number); row++)
            if (tokens[row]?.type === "tr_open") visitRow(row);
          break;
        case "bullet_list_open":
        case "ordered_list_open":
        case "blockquote_open":
        case "footnote_reference_open":
          visit(index + 1, closeOf[index] as number);
          break;
        default:
          // Thematic breaks, definitions (no token), front matter (blanked): no text.
          break;
      }
    }
  };

  const visitRow = (row: number): void => {
    const cells: string[] = [];
    for (let index = row + 1; index < (closeOf[row] as number); index++) {
      const token = tokens[index] as Token;
      if (token.type === "inline") cells.push(collapse(inline(token)));
    }
    // markdown-it fills a short row with empty cells up to the header's count: they hold nothing to read.
    while (cells.at(-1) === "") cells.pop();
    const [first, last] = tokens[row]?.map ?? [0, 0];
    push({ kind: "table_row", text: cells.join(" | ").trim() }, first, last);
  };

  // An item's own blocks (all but its nested lists) are one block, from its bullet to their last line; nested
  // lists follow as items of their own.
  const visitListItem = (item: number): void => {
    const parts: string[] = [];
    const lists: number[] = [];
    let lastLine: number | undefined;
    for (let index = item + 1; index < (closeOf[item] as number); index = (closeOf[index] as number) + 1) {
      const token = tokens[index] as Token;
      if (token.type === "bullet_list_open" || token.type === "ordered_list_open") {
        lists.push(index);
        continue;
      }
      if (token.map) lastLine = token.map[1];
      parts.push(ownText(index));
    }
    if (lastLine !== undefined) {
      const text = parts.filter((part) => part !== "").join("\n");
      const task = TASK.exec(text);
      const checked = task ? `[${task[1] === " " ? " " : "x"}] ` : "";
      const [first] = tokens[item]?.map ?? [0, 0];
      push(
        { kind: "list_item", text: `${checked}${task ? text.slice(task[0].length) : text}` },
        first,
        lastLine,
      );
    }
    for (const list of lists) visit(list + 1, closeOf[list] as number);
  };

  // The text of one of a list item's own blocks: code as it is, HTML without tags, anything else its inline text.
  const ownText = (index: number): string => {
    const token = tokens[index] as Token;
    if (token.type === "fence" || token.type === "code_block") return codeBlock(token).text;
    if (token.type === "html_block") return htmlText(token.content);
    let text = "";
    for (let inner = index + 1; inner < (closeOf[index] as number); inner++) {
      const child = tokens[inner] as Token;
      if (child.type === "inline") text += inline(child);
      else if (child.type === "fence" || child.type === "code_block") text += codeBlock(child).text;
    }
    return text.trim();
  };

  visit(0, tokens.length);
  return blocks;
}

/** The index of each token's closing token (its own index for a token that opens nothing). */
function matchingCloses(tokens: readonly Token[]): number[] {
  const closeOf = tokens.map((_, index) => index);
  const open: number[] = [];
  tokens.forEach((token, index) => {
    if (token.nesting === 1) open.push(index);
    else if (token.nesting === -1) {
      const opener = open.pop();
      if (opener !== undefined) closeOf[opener] = index;
    }
  });
  return closeOf;
}

function codeBlock(token: Token): DocumentBlock {
  const text = token.content.endsWith("\n") ? token.content.slice(0, -1) : token.content;
  const info = token.type === "fence" ? markdownIt().utils.unescapeAll(token.info).trim() : "";
  const language = info.split(/\s+/)[0];
  return { kind: "code", text, ...(language ? { language } : {}) };
}

/** The readable text of an inline token: markup dropped, images as `![alt](src)`, line breaks kept. */
function inline(token: Token | undefined): string {
  let text = "";
  for (const child of token?.children ?? []) {
    switch (child.type) {
      case "text":
      case "text_special":
        text += child.content;
        break;
      case "code_inline":
        text += inlineCode(child.content);
        break;
      case "softbreak":
      case "hardbreak":
        text += "\n";
        break;
      case "image":
        text += `![${altText(child)}](${child.attrGet("src") ?? ""})`;
        break;
      case "html_inline":
        text += htmlText(child.content);
        break;
      default:
        // Link, emphasis and strikethrough marks, footnote references: no text of their own.
        break;
    }
  }
  return text;
}

/** An image's alternative text as plain text (markup dropped, inline code without its backticks). */
function altText(image: Token): string {
  let text = "";
  for (const child of image.children ?? []) {
    if (child.type === "image") text += altText(child);
    else if (child.type === "softbreak" || child.type === "hardbreak") text += "\n";
    else if (child.nesting === 0) text += child.content;
  }
  return text;
}

/** The text with front matter's lines blanked, so every other line keeps its number. */
function withoutFrontMatter(text: string): string {
  const match = FRONT_MATTER.exec(text);
  if (!match) return text;
  return "\n".repeat(countLines(match[0])) + text.slice(match[0].length);
}

function countLines(text: string): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++;
  return count;
}
