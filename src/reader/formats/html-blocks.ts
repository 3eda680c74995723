import type { Handler, Parser } from "htmlparser2";
import {
  blockElements,
  droppedElements,
  droppedRoles,
  headingDepth,
  namesFurniture,
  parserDepthCap,
  permalinkMarks,
  rawTextElements,
  structuralElements,
} from "./html-elements.js";
import { foreignRegions } from "./html-foreign.js";
import { htmlParser } from "./streaming-parser.js";
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

/**
 * The text of a heading's permalink, a link to the heading itself that the page shows beside it: Node's API docs
 * (`<a class="mark" href="#readline">#</a>`), MkDocs and Sphinx themes (`¶`), others (`§`, `🔗`). Taken as the
 * heading's text it ended every heading of those pages (`Readline#`, in every source line of an answer).
 */
const PERMALINK_MARK = /^\s*[#¶§🔗]\s*$/u;

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
  const Parser = htmlParser();
  const hardDepth = Math.max(parserDepthCap, maxDepth);
  const blocks: DocumentBlock[] = [];
  // Whether each block (same index) came from inside <main>/<article>/[role=main]: kept beside the blocks rather
  // than on them, as removing a property again (`({ inMain, ...block }) => block`) took a tenth of the read.
  const blockInMain: boolean[] = [];
  const stack: string[] = [];
  const captures: OpenBlock[] = [];
  let paragraph: OpenBlock | undefined;
  let dropUntil = -1; // stack depth of the dropped element we are inside, or -1
  // A link to a place on the page inside a heading: where its text starts in the heading's (see PERMALINK_MARK).
  let pageLink: { depth: number; heading: OpenBlock; from: number } | undefined;
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
    const block: DocumentBlock = { kind: open.kind, text };
    if (open.depth !== undefined) block.depth = open.depth;
    if (open.language !== undefined) block.language = open.language;
    if (withLines) block.lines = { start: open.startLine, end: Math.max(open.startLine, lineAt(endIndex)) };
    blocks.push(block);
    blockInMain.push(open.inMain);
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
  // The last event when it was a start tag: its name and where its `>` is in `html` (see the skips below).
  let lastOpenName = "";
  let lastOpenEnd = -1;
  const handlers: Partial<Handler> = {
    onopentag(name, attributes, isImplied) {
      stack.push(name);
      const depth = stack.length;
      lastOpenName = isImplied ? "" : name;
      lastOpenEnd = base + parser.endIndex;
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
        namesFurniture(name, attributes) ||
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
      const within = captures[captures.length - 1];
      if (name === "a" && within?.kind === "heading" && attributes.href?.startsWith("#"))
        pageLink = { depth, heading: within, from: within.text.length };
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
        if (name === "code" && open.text.trim() !== "") {
          // A second <code> in one <pre> is a listing of its own: Node's docs put an example's ES module and
          // CommonJS versions side by side there, one shown at a time. Run on, the first one's last line and the
          // second one's first became one line (`main();const { x } = require(…)`).
          captures.pop();
          emit(open, index);
          const language = languageOf(attributes.class) ?? open.language;
          captures.push({
            kind: "code",
            element: open.element,
            text: "",
            startLine: lineAt(index),
            inMain: open.inMain,
            ...(language ? { language } : {}),
          });
          return;
        }
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
      lastOpenName = "";
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
      lastOpenName = "";
      const depth = stack.length;
      stack.pop();
      if (name === "title") inTitle = false;
      if (dropUntil !== -1) {
        if (depth === dropUntil) dropUntil = -1;
        return;
      }
      if (pageLink?.depth === depth) {
        const { heading, from } = pageLink;
        if (PERMALINK_MARK.test(heading.text.slice(from))) heading.text = heading.text.slice(0, from);
        pageLink = undefined;
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
  // The content of an <svg> or <math> (dropped whole) is not given to the parser when foreignRegions finds it
  // skippable and the parser has just read its start tag there: `base` then grows by what was left out, so the
  // parser's positions still map to `html`.
  const sliceLength = 64 * 1024;
  const regions = foreignRegions(html);
  let nextRegion = 0;
  for (;;) {
    parser = new Parser(handlers, {
      decodeEntities: true,
      lowerCaseTags: true,
      lowerCaseAttributeNames: true,
    });
    let at = base; // the next character of `html` to give the parser
    while (at < html.length && restartAt === -1) {
      while (nextRegion < regions.length && (regions[nextRegion] as { start: number }).start < at)
        nextRegion++;
      const region = regions[nextRegion];
      const stop = Math.min(at + sliceLength, region?.start ?? html.length);
      parser.write(html.slice(at, stop));
      at = stop;
      if (region !== undefined && at === region.start && restartAt === -1) {
        if (lastOpenName === region.name && lastOpenEnd === region.start - 1) {
          base += region.end - region.start;
          at = region.end;
        }
        nextRegion++;
      }
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

  const result: HtmlBlocksResult = {
    blocks: seenMain ? blocks.filter((_block, index) => blockInMain[index]) : blocks,
  };
  const cleanTitle = title?.replace(/\s+/g, " ").trim();
  if (cleanTitle) result.title = cleanTitle;
  if (language !== undefined) result.language = language;
  return result;
}
