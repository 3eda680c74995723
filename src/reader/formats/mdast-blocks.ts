import type { Definition, Nodes, Parents, Root, RootContent } from "mdast";
import type { DocumentBlock } from "./types.js";

// The mdast → blocks conversion shared by the readers whose text parses as Markdown (Markdown, MDX, notebook
// markdown cells). Internal: readers call it, the rest of ragsynth only sees blocks.

const TAG = /<[^>]*>/g;
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const HTML_IMAGE = /<img\b[^>]*>/gi;

/** Options of {@link mdastToBlocks}. */
export interface MdastToBlocksOptions {
  /** Added to every line number: the line of the source the parsed text starts on, less one. @default 0 */
  lineOffset?: number;
  /** Set on every block (notebook readers: the cell the Markdown came from). */
  cell?: number;
}

/**
 * The blocks of a Markdown syntax tree, in document order: headings (with depth), paragraphs, code (with its
 * language), list items (nested items are blocks of their own), table rows (cells joined by `" | "`), each with
 * its 1-based line range. Inline markup is dropped (`**a**` → `a`, `[text](url)` → `text`), except inline code,
 * kept in backticks (docs quote option names that way, and so do questions about them), and images, kept as
 * `![alt](src)` so the images a chunk references are still found in its text. HTML keeps its text without
 * tags (an `<img>` becomes `![alt](src)`); front matter, definitions and thematic breaks are left out.
 */
export function mdastToBlocks(
  root: Root,
  { lineOffset = 0, cell }: MdastToBlocksOptions = {},
): DocumentBlock[] {
  const definitions = new Map<string, Definition>();
  collectDefinitions(root, definitions);
  const blocks: DocumentBlock[] = [];
  const push = (block: DocumentBlock, node: Nodes, endNode: Nodes = node): void => {
    const start = node.position?.start.line;
    const end = endNode.position?.end.line;
    if (block.text.trim() === "" && block.kind !== "code") return;
    if (start !== undefined && end !== undefined)
      block.lines = { start: start + lineOffset, end: end + lineOffset };
    if (cell !== undefined) block.cell = cell;
    blocks.push(block);
  };
  const inline = (node: Nodes): string => inlineText(node, definitions);

  const visit = (node: RootContent): void => {
    switch (node.type) {
      case "heading":
        push({ kind: "heading", depth: node.depth, text: collapse(inline(node)) }, node);
        return;
      case "paragraph":
        push({ kind: "paragraph", text: inline(node).trim() }, node);
        return;
      case "code":
        push({ kind: "code", text: node.value, ...(node.lang ? { language: node.lang } : {}) }, node);
        return;
      case "html":
        push({ kind: "paragraph", text: htmlText(node.value) }, node);
        return;
      case "list":
        for (const item of node.children) visitListItem(item);
        return;
      case "table":
        for (const row of node.children) {
          const cells = row.children.map((tableCell) => collapse(inline(tableCell)));
          push({ kind: "table_row", text: cells.join(" | ") }, row);
        }
        return;
      case "blockquote":
      case "footnoteDefinition":
        for (const child of node.children) visit(child);
        return;
      default:
        // yaml/toml front matter, definitions, thematic breaks: no text to read.
        return;
    }
  };

  const visitListItem = (item: Extract<RootContent, { type: "listItem" }>): void => {
    const own = item.children.filter((child) => child.type !== "list");
    if (own.length > 0) {
      const text = own
        .map((child) =>
          child.type === "code"
            ? child.value
            : child.type === "html"
              ? htmlText(child.value)
              : inline(child).trim(),
        )
        .filter((part) => part !== "")
        .join("\n");
      push({ kind: "list_item", text }, item, own[own.length - 1] as Nodes);
    }
    for (const child of item.children) if (child.type === "list") visit(child);
  };

  for (const child of root.children) visit(child);
  return blocks;
}

function collectDefinitions(node: Nodes, into: Map<string, Definition>): void {
  if (node.type === "definition") into.set(node.identifier, node);
  if ("children" in node) for (const child of (node as Parents).children) collectDefinitions(child, into);
}

/** The readable text of inline content: markup dropped, images as `![alt](src)`, line breaks kept. */
function inlineText(node: Nodes, definitions: ReadonlyMap<string, Definition>): string {
  switch (node.type) {
    case "text":
      return node.value;
    case "inlineCode":
      return inlineCode(node.value);
    case "break":
      return "\n";
    case "image":
      return `![${node.alt ?? ""}](${node.url})`;
    case "imageReference": {
      const definition = definitions.get(node.identifier);
      return definition ? `![${node.alt ?? ""}](${definition.url})` : (node.alt ?? "");
    }
    case "html":
      return htmlText(node.value);
    case "footnoteReference":
      return "";
    default:
      if ("children" in node)
        return (node as Parents).children.map((child) => inlineText(child, definitions)).join("");
      return "value" in node && typeof node.value === "string" ? node.value : "";
  }
}

/** HTML's text without tags or comments; an `<img>` as `![alt](src)`; entities for `<`, `>`, `&`, quotes decoded. */
function htmlText(html: string): string {
  const withImages = html.replace(COMMENT, "").replace(HTML_IMAGE, (tag) => {
    const src = attribute(tag, "src");
    return src ? `![${attribute(tag, "alt") ?? ""}](${src})` : "";
  });
  return withImages
    .replace(TAG, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join("\n");
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** Inline code in as many backticks as it needs (one more than its longest run), spaced when it touches one. */
function inlineCode(value: string): string {
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = value.startsWith("`") || value.endsWith("`") ? " " : "";
  return `${fence}${pad}${value}${pad}${fence}`;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
