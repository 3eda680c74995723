import type { Nodes, Parent, Root, RootContent } from "mdast";
import type {} from "mdast-util-frontmatter";
import type {} from "mdast-util-mdx";
import type { DocumentBlock } from "./types.js";

// Turns an mdast tree (Markdown, GFM, MDX) into reader blocks. Shared by the MDX reader and the notebook reader's
// markdown cells; the Markdown reader may take it over (one home for "mdast → blocks").

/** Options of {@link mdastToBlocks}. */
export interface MdastToBlocksOptions {
  /** Added to every block (`cell` for a notebook cell). */
  extra?: Partial<DocumentBlock>;
  /** Give blocks `lines` from the tree's positions. @default true */
  withLines?: boolean;
}

/** The blocks of an mdast tree, in document order, each with its line range from the tree's positions. */
export function mdastToBlocks(
  tree: Root,
  { extra = {}, withLines = true }: MdastToBlocksOptions = {},
): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  const push = (block: DocumentBlock, node: Nodes) => {
    if (block.text === "") return;
    const start = node.position?.start.line;
    const end = node.position?.end.line;
    if (withLines && start !== undefined && end !== undefined) block.lines = { start, end };
    blocks.push({ ...block, ...extra });
  };
  const visit = (node: Nodes): void => {
    // Front matter is metadata, not text ("toml" comes from the front matter extension without a type).
    if ((node.type as string) === "toml") return;
    switch (node.type) {
      case "heading":
        push({ kind: "heading", text: inlineText(node), depth: node.depth }, node);
        return;
      case "paragraph":
        push({ kind: "paragraph", text: inlineText(node) }, node);
        return;
      case "code":
        push(
          node.lang
            ? { kind: "code", text: node.value, language: node.lang }
            : { kind: "code", text: node.value },
          node,
        );
        return;
      case "html":
        push({ kind: "paragraph", text: stripTags(node.value) }, node);
        return;
      case "listItem": {
        const own = node.children.filter((child) => child.type !== "list");
        const text = own.map((child) => blockText(child)).join("\n");
        push(
          { kind: "list_item", text: node.checked == null ? text : `[${node.checked ? "x" : " "}] ${text}` },
          node,
        );
        for (const child of node.children) if (child.type === "list") visit(child);
        return;
      }
      case "table":
        for (const row of node.children) {
          push(
            {
              kind: "table_row",
              text: row.children
                .map((cell) => inlineText(cell))
                .join(" | ")
                .trim(),
            },
            row,
          );
        }
        return;
      case "yaml":
      case "thematicBreak":
      case "definition":
      case "mdxjsEsm":
      case "mdxFlowExpression":
        return;
      default:
        if ("children" in node) for (const child of node.children) visit(child as Nodes);
    }
  };
  visit(tree);
  return blocks;
}

/** The readable text of a block-level node (a list item's paragraph, code, nested quote). */
function blockText(node: RootContent): string {
  if (node.type === "code") return node.value;
  if (node.type === "html") return stripTags(node.value);
  if (node.type === "paragraph" || node.type === "heading") return inlineText(node);
  if ("children" in node) {
    return (node.children as RootContent[])
      .map((child) => blockText(child))
      .filter((text) => text !== "")
      .join("\n");
  }
  return "value" in node && typeof node.value === "string" && !node.type.startsWith("mdx") ? node.value : "";
}

/** The plain text of inline content: marks gone, code spans' text kept, images by their alt, JSX expressions dropped. */
export function inlineText(node: Nodes): string {
  let out = "";
  const walk = (current: Nodes) => {
    switch (current.type) {
      case "text":
      case "inlineCode":
        out += current.value;
        return;
      case "break":
        out += "\n";
        return;
      case "image":
      case "imageReference":
        out += current.alt ?? "";
        return;
      case "html":
        out += stripTags(current.value);
        return;
      case "mdxTextExpression":
      case "mdxFlowExpression":
      case "mdxjsEsm":
      case "footnoteReference":
        return;
      default:
        if ("children" in current) for (const child of (current as Parent).children) walk(child as Nodes);
    }
  };
  walk(node);
  return out.replace(/[ \t]+\n/g, "\n").trim();
}

/** Removes HTML tags and comments from raw HTML in Markdown, keeping the text between them. */
export function stripTags(html: string): string {
  let out = "";
  let index = 0;
  while (index < html.length) {
    const open = html.indexOf("<", index);
    if (open === -1) break;
    out += html.slice(index, open);
    const isComment = html.startsWith("<!--", open);
    const close = isComment ? html.indexOf("-->", open + 4) : html.indexOf(">", open + 1);
    // An unclosed "<" is text, not a tag ("a < b").
    if (close === -1) {
      out += "<";
      index = open + 1;
      continue;
    }
    index = close + (isComment ? 3 : 1);
  }
  return (out + html.slice(index)).trim();
}

/** Options of {@link markdownToBlocks}. */
export interface MarkdownToBlocksOptions extends MdastToBlocksOptions {
  /** Parse MDX syntax (ESM, JSX, expressions); strict, so it throws on what MDX cannot parse. @default false */
  mdx?: boolean;
}

/**
 * Parses Markdown (CommonMark + GFM tables, task lists, strikethrough, footnotes; YAML front matter skipped) with
 * micromark and returns its blocks. The parser is loaded on first use.
 */
export async function markdownToBlocks(
  text: string,
  options: MarkdownToBlocksOptions = {},
): Promise<DocumentBlock[]> {
  const [{ fromMarkdown }, gfm, frontmatter, mdx] = await Promise.all([
    import("mdast-util-from-markdown"),
    loadGfm(),
    loadFrontmatter(),
    options.mdx ? loadMdx() : undefined,
  ]);
  const extensions = [gfm.syntax, frontmatter.syntax, ...(mdx ? [mdx.syntax] : [])];
  const mdastExtensions = [gfm.tree, frontmatter.tree, ...(mdx ? [mdx.tree] : [])];
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
