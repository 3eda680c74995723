import type { Definition, Nodes, Parents, Root, RootContent } from "mdast";
import type {} from "mdast-util-frontmatter";
import type {} from "mdast-util-mdx";
import { collapse, htmlText, inlineCode } from "./markdown-inline.js";
import { markdownItBlocks } from "./markdown-it-blocks.js";
import { isPathologicallyNested } from "./markdown-segments.js";
import { paragraphBlocks } from "./plain-text.js";
import type { DocumentBlock } from "./types.js";

// The mdast → blocks conversion for MDX (micromark's MDX extensions are the parser that knows ESM and JSX), and
// `markdownToBlocks`, the entry for readers whose text parses as Markdown (MDX, notebook markdown cells; plain
// Markdown goes to markdown-it, see markdown-it-blocks.ts, which gives the same blocks for the same text).
// Internal: readers call it, the rest of ragsynth only sees blocks.

/** Options of {@link mdastToBlocks}. */
export interface MdastToBlocksOptions {
  /** Added to every line number: the line of the source the parsed text starts on, less one. @default 0 */
  lineOffset?: number;
  /** Set on every block (notebook readers: the cell the Markdown came from). */
  cell?: number;
  /** Give blocks `lines` from the tree's positions (a notebook cell's lines are not the file's). @default true */
  withLines?: boolean;
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
  { lineOffset = 0, cell, withLines = true }: MdastToBlocksOptions = {},
): DocumentBlock[] {
  const definitions = new Map<string, Definition>();
  collectDefinitions(root, definitions);
  const blocks: DocumentBlock[] = [];
  const push = (block: DocumentBlock, node: Nodes, endNode: Nodes = node): void => {
    const start = node.position?.start.line;
    const end = endNode.position?.end.line;
    if (block.text.trim() === "" && block.kind !== "code") return;
    if (withLines && start !== undefined && end !== undefined)
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
          push({ kind: "table_row", text: cells.join(" | ").trim() }, row);
        }
        return;
      case "blockquote":
      case "footnoteDefinition":
      case "mdxJsxFlowElement":
        // MDX components keep the text inside them.
        for (const child of node.children) visit(child);
        return;
      default:
        // yaml/toml front matter, definitions, thematic breaks, MDX imports/exports and expressions: no text.
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
      const checked = item.checked == null ? "" : `[${item.checked ? "x" : " "}] `;
      push({ kind: "list_item", text: `${checked}${text}` }, item, own[own.length - 1] as Nodes);
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
    case "mdxTextExpression":
      return "";
    default:
      if ("children" in node)
        return (node as Parents).children.map((child) => inlineText(child, definitions)).join("");
      return "value" in node && typeof node.value === "string" ? node.value : "";
  }
}

/** Options of {@link markdownToBlocks}. */
export interface MarkdownToBlocksOptions extends MdastToBlocksOptions {
  /** Parse MDX syntax (ESM, JSX, expressions); strict, so it throws on what MDX cannot parse. @default false */
  mdx?: boolean;
}

/**
 * Parses Markdown (CommonMark + GFM tables, task lists, strikethrough, footnotes; YAML front matter skipped) and
 * returns its blocks: with markdown-it, or for MDX with micromark's MDX extensions (loaded on first use).
 */
export async function markdownToBlocks(
  text: string,
  options: MarkdownToBlocksOptions = {},
): Promise<DocumentBlock[]> {
  const { mdx: _mdx, ...blockOptions } = options;
  // Nesting that makes the parser's cost grow with its square: read as paragraphs (see markdown-segments.ts).
  const parsed = isPathologicallyNested(text)
    ? undefined
    : options.mdx
      ? await mdxToBlocks(text, blockOptions)
      : markdownItBlocks(text, blockOptions);
  return parsed ?? nestedAsParagraphs(text, blockOptions);
}

function nestedAsParagraphs(text: string, options: MdastToBlocksOptions): DocumentBlock[] {
  return paragraphBlocks(text).map((block) => {
    const { lines, ...rest } = block;
    return {
      ...rest,
      ...(options.withLines === false || !lines
        ? {}
        : {
            lines: {
              start: lines.start + (options.lineOffset ?? 0),
              end: lines.end + (options.lineOffset ?? 0),
            },
          }),
      ...(options.cell === undefined ? {} : { cell: options.cell }),
    };
  });
}

async function mdxToBlocks(text: string, options: MdastToBlocksOptions): Promise<DocumentBlock[]> {
  const [{ fromMarkdown }, gfm, frontmatter, mdx] = await Promise.all([
    import("mdast-util-from-markdown"),
    loadGfm(),
    loadFrontmatter(),
    loadMdx(),
  ]);
  const extensions = [gfm.syntax, frontmatter.syntax, mdx.syntax];
  const mdastExtensions = [gfm.tree, frontmatter.tree, mdx.tree];
  return mdastToBlocks(fromMarkdown(text, { extensions, mdastExtensions }), options);
}

async function loadGfm() {
  const [{ gfm }, { gfmFromMarkdown }] = await Promise.all([
    import("micromark-extension-gfm"),
    import("mdast-util-gfm"),
  ]);
  return { syntax: gfm(), tree: gfmFromMarkdown() };
}

async function loadFrontmatter() {
  const [{ frontmatter }, { frontmatterFromMarkdown }] = await Promise.all([
    import("micromark-extension-frontmatter"),
    import("mdast-util-frontmatter"),
  ]);
  return { syntax: frontmatter(["yaml", "toml"]), tree: frontmatterFromMarkdown(["yaml", "toml"]) };
}

async function loadMdx() {
  const [{ mdxjs }, { mdxFromMarkdown }] = await Promise.all([
    import("micromark-extension-mdxjs"),
    import("mdast-util-mdx"),
  ]);
  return { syntax: mdxjs(), tree: mdxFromMarkdown() };
}
