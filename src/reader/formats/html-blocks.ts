import type { Handler, Parser } from "htmlparser2";
import {
  blockElements,
  droppedElements,
  droppedRoles,
  headingDepth,
  parserDepthCap,
  permalinkMarks,
  rawTextElements,
  structuralElements,
} from "./html-elements.js";
import type { DocumentBlock } from "./types.js";

// HTML markup → blocks, with htmlparser2's streaming parser: its callbacks keep no tree and we keep only a stack
// of open elements, so a document nested 100,000 deep costs an array, never the call stack. Shared by the HTML
// reader and the DOCX reader (mammoth turns a DOCX into HTML).

/** What the HTML held: its blocks, and its `<title>` and `lang` when present. */
export interface HtmlBlocksResult {
  blocks: DocumentBlock[];
  title?: string;
  language?: string;
}

export interface HtmlToBlocksOptions {
  /** The markup, already decoded. */
  html: string;
  /** Deepest element nesting interpreted; deeper elements are read as flat text. */
  maxDepth: number;
  /** Whether blocks carry the 1-based source line range (true for `.html` files; DOCX has no lines). */
  withLines: boolean;
}

/** A block being filled: the innermost heading, list item, `<pre>`, table row, or a plain paragraph. */
interface OpenBlock {
  kind: DocumentBlock["kind"];
  element: number;
  text: string;
  depth?: number;
  language?: string;
  cells?: string[];
  startLine: number;
  inMain: boolean;
}

// A run of whitespace other than one plain space: the runs `/\s+/g` would turn into " ", less the single spaces
// between words, which it would replace by themselves (most of a page's matches: this is ~3× faster on real pages).
const WHITESPACE_TO_COLLAPSE = / \s+|[^\S ]\s*/g;

/** Every run of whitespace as one space, as `text.replace(/\s+/g, " ")`. */
function collapseSpaces(text: string): string {
  return text.replace(WHITESPACE_TO_COLLAPSE, " ");
}

function languageOf(className: string | undefined): string | undefined {
  return className === undefined ? undefined : /(?:^|\s)lang(?:uage)?-([\w+#.-]+)/.exec(className)?.[1];
}

/** Reads HTML into blocks: boilerplate dropped, `<main>`/`<article>` preferred when present. */
export async function htmlToBlocks({
  html,
  maxDepth,
  withLines,
}: HtmlToBlocksOptions): Promise<HtmlBlocksResult> {
  // Loaded on the first HTML (or DOCX) file, so a folder of Markdown never pays for it.
  const { Parser } = await import("htmlparser2");
  const hardDepth = Math.max(parserDepthCap, maxDepth);
  const blocks: (DocumentBlock & { inMain: boolean })[] = [];
  const stack: string[] = [];
  const captures: OpenBlock[] = [];
  let paragraph: OpenBlock | undefined;
  let dropUntil = -1; // stack depth of the dropped element we are inside, or -1
  const mainAt: number[] = []; // stack depths of the open <main>/<article>/[role=main] elements
  let title: string | undefined;
  let inTitle = false;
  let language: string | undefined;
  let seenMain = false;

  // Line numbers, counted forward as the parser moves (positions only grow), each newline passed once.
  let line = 1;
  let nextNewline = withLines ? html.indexOf("\n") : -1;
  const lineAt = (index: number) => {
    while (nextNewline !== -1 && nextNewline < index) {
      line++;
      nextNewline = html.indexOf("\n", nextNewline + 1);
    }
    return line;
  };

  const emit = (open: OpenBlock, endIndex: number) => {
    const text =
      open.kind === "code"
        ? open.text.replace(/^\n/, "").trimEnd()
        : open.kind === "table_row"
          ? (open.cells ?? [])
              .map((cell) => collapseSpaces(cell).trim())
              .filter(Boolean)
              .join(" | ")
          : open.kind === "heading"
            ? collapseSpaces(open.text).replace(permalinkMarks, "").trim()
            : collapseSpaces(open.text).trim();
    if (text.length === 0) return;
    const block: DocumentBlock & { inMain: boolean } = { kind: open.kind, text, inMain: open.inMain };
    if (open.depth !== undefined) block.depth = open.depth;
    if (open.language !== undefined) block.language = open.language;
    if (withLines) block.lines = { start: open.startLine, end: Math.max(open.startLine, lineAt(endIndex)) };
    blocks.push(block);
  };
  const flushParagraph = (index: number) => {
    if (paragraph !== undefined) emit(paragraph, index);
    paragraph = undefined;
  };
  /** Text before a nested block (an outer list item's own words before its sub-list) is a block of its own. */
  const flushCapture = (index: number) => {
    const open = captures[captures.length - 1];
    if (open === undefined || open.kind === "table_row" || open.kind === "code") return;
    emit(open, index);
    open.text = "";
  };

  /** Past `maxDepth` elements are not interpreted, but a block's edge still separates words. */
  const separate = (name: string) => {
    if (!blockElements.has(name) && !structuralElements.has(name)) return;
    const open = captures[captures.length - 1] ?? paragraph;
    if (open === undefined) return;
    if (open.kind === "table_row") (open.cells as string[]).push("");
    else open.text += " ";
  };
  let parser: Parser;
  let base = 0; // where the current parser's input starts in `html`
  let restartAt = -1;
  let flatInMain = false; // deep content cut loose from a <main> it was in
  const handlers: Partial<Handler> = {
    onopentag(name, attributes, isImplied) {
      stack.push(name);
      const depth = stack.length;
      if (depth > hardDepth && !isImplied && !rawTextElements.has(name) && restartAt === -1) {
        restartAt = base + parser.endIndex + 1;
        parser.pause();
      }
      if (dropUntil !== -1) return;
      if (name === "html" && attributes.lang) language = attributes.lang;
      if (name === "title" && title === undefined) inTitle = true;
      const role = attributes.role;
      if (
        droppedElements.has(name) ||
        (role !== undefined && droppedRoles.has(role)) ||
        attributes.hidden !== undefined ||
        attributes["aria-hidden"] === "true" ||
        (name === "header" && mainAt.length === 0)
      ) {
        if (name !== "head") dropUntil = depth;
        return;
      }
      if (depth > maxDepth) {
        separate(name);
        return;
      }
      const index = base + parser.startIndex;
      if (name === "main" || name === "article" || role === "main") {
        mainAt.push(depth);
        seenMain = true;
      }
      const inMain = mainAt.length > 0 || flatInMain;
      if (name === "img" && attributes.alt) {
        const target = captures[captures.length - 1] ?? paragraph;
        if (target?.kind === "table_row") {
          const cells = target.cells as string[];
          if (cells.length === 0) cells.push("");
          cells[cells.length - 1] += ` ${attributes.alt} `;
        } else if (target !== undefined) target.text += ` ${attributes.alt} `;
        else
          paragraph = {
            kind: "paragraph",
            element: depth,
            text: attributes.alt,
            startLine: lineAt(index),
            inMain,
          };
        return;
      }
      const open = captures[captures.length - 1];
      if (open?.kind === "table_row") {
        if (name === "td" || name === "th") open.cells?.push("");
        else if (name !== "tr") return;
      }
      if (open?.kind === "code") {
        const language =
          name === "code" && open.language === undefined ? languageOf(attributes.class) : undefined;
        if (language !== undefined) open.language = language;
        return;
      }
      if (open?.kind === "heading" && !(name in headingDepth)) return;
      const heading = headingDepth[name];
      if (heading !== undefined || name === "li" || name === "pre" || name === "tr") {
        flushParagraph(index);
        flushCapture(index);
        const startLine = lineAt(index);
        if (heading !== undefined)
          captures.push({ kind: "heading", element: depth, text: "", depth: heading, startLine, inMain });
        else if (name === "li")
          captures.push({ kind: "list_item", element: depth, text: "", startLine, inMain });
        else if (name === "tr")
          captures.push({ kind: "table_row", element: depth, text: "", cells: [], startLine, inMain });
        else {
          const language = languageOf(attributes.class);
          captures.push({
            kind: "code",
            element: depth,
            text: "",
            startLine,
            inMain,
            ...(language ? { language } : {}),
          });
        }
      } else if (blockElements.has(name) || name === "td" || name === "th") {
        if (open === undefined) flushParagraph(index);
        else open.text += " ";
      }
    },
    ontext(text) {
      if (inTitle) title = (title ?? "") + text;
      if (dropUntil !== -1 || inTitle) return;
      const open = captures[captures.length - 1];
      if (open?.kind === "table_row") {
        const cells = open.cells as string[];
        if (cells.length === 0) cells.push("");
        cells[cells.length - 1] += text;
      } else if (open !== undefined) {
        open.text += text;
      } else if (paragraph !== undefined) {
        paragraph.text += text;
      } else if (text.trim().length > 0) {
        const start = base + parser.startIndex + text.length - text.trimStart().length;
        paragraph = {
          kind: "paragraph",
          element: stack.length,
          text,
          startLine: lineAt(start),
          inMain: mainAt.length > 0 || flatInMain,
        };
      }
    },
    onclosetag(name) {
      const depth = stack.length;
      stack.pop();
      if (name === "title") inTitle = false;
      if (dropUntil !== -1) {
        if (depth === dropUntil) dropUntil = -1;
        return;
      }
      if (depth > maxDepth) {
        separate(name);
        return;
      }
      const index = base + parser.endIndex + 1;
      const open = captures[captures.length - 1];
      if (open !== undefined && open.element === depth) {
        captures.pop();
        emit(open, index);
        const parent = captures[captures.length - 1];
        if (parent !== undefined && parent.kind !== "table_row") parent.startLine = lineAt(index);
      } else if (open === undefined && blockElements.has(name)) {
        flushParagraph(index);
      }
      if (mainAt[mainAt.length - 1] === depth) mainAt.pop();
    },
  };
  const closeAll = (index: number) => {
    flushParagraph(index);
    while (captures.length > 0) emit(captures.pop() as OpenBlock, index);
  };

  // htmlparser2 keeps its open elements with Array#unshift, so each tag costs the depth: past `hardDepth` the
  // parse restarts on the rest of the input with an empty stack (the deep content read as flat text), which keeps
  // a 100,000-deep document linear. Input goes in slices so a restart copies one slice, not the rest of the file.
  const sliceLength = 64 * 1024;
  for (;;) {
    parser = new Parser(handlers, {
      decodeEntities: true,
      lowerCaseTags: true,
      lowerCaseAttributeNames: true,
    });
    for (let at = base; at < html.length && restartAt === -1; at += sliceLength) {
      parser.write(html.slice(at, at + sliceLength));
    }
    if (restartAt === -1) {
      parser.end();
      break;
    }
    closeAll(restartAt);
    flatInMain ||= mainAt.length > 0;
    stack.length = 0;
    mainAt.length = 0;
    dropUntil = -1;
    base = restartAt;
    restartAt = -1;
  }
  closeAll(html.length);

  const kept = seenMain ? blocks.filter((block) => block.inMain) : blocks;
  const result: HtmlBlocksResult = { blocks: kept.map(({ inMain: _inMain, ...block }) => block) };
  const cleanTitle = title?.replace(/\s+/g, " ").trim();
  if (cleanTitle) result.title = cleanTitle;
  if (language !== undefined) result.language = language;
  return result;
}
