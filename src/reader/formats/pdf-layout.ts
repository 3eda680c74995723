import type { DocumentBlock } from "./types.js";

// Turns PDF.js text items into blocks: items into lines (by baseline), lines into paragraphs (by vertical gaps,
// font size and bullets), running headers and footers dropped, words hyphenated across line ends joined.

/** One text item as PDF.js reports it, reduced to what layout needs. */
export interface PdfTextItem {
  text: string;
  /** Baseline start, in points from the page's bottom-left corner. */
  x: number;
  y: number;
  width: number;
  fontSize: number;
  monospace: boolean;
}

/** One line of text on a page. */
export interface PdfLine {
  text: string;
  x: number;
  y: number;
  fontSize: number;
  monospace: boolean;
}

const bulletPattern = /^[•◦▪▫‣⁃∙●○■□►▶–]\s+/u;
const pageNumberPattern =
  /^[-–—\s]*(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|\/)\s*\d{1,4})?[-–—\s]*$/i;
const ligatures = /[\uFB00-\uFB06]/g;

/** Groups one page's items (in content-stream order, which is reading order for most PDFs) into lines. */
export function itemsToLines(items: readonly PdfTextItem[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let current: (PdfLine & { end: number }) | undefined;
  for (const item of items) {
    if (item.text.length === 0) continue;
    const text = item.text.replace(ligatures, (ligature) => ligature.normalize("NFKC"));
    const size = Math.max(item.fontSize, 1);
    const sameLine =
      current !== undefined &&
      Math.abs(item.y - current.y) <= 0.5 * Math.max(size, current.fontSize) &&
      item.x >= current.end - 2 * size;
    if (!sameLine || current === undefined) {
      if (text.trim().length === 0) continue;
      current = {
        text,
        x: item.x,
        y: item.y,
        fontSize: size,
        monospace: item.monospace,
        end: item.x + item.width,
      };
      lines.push(current);
      continue;
    }
    const gap = item.x - current.end;
    const needsSpace = gap > 0.15 * size && !/\s$/.test(current.text) && !/^\s/.test(text);
    current.text += needsSpace ? ` ${text}` : text;
    current.end = Math.max(current.end, item.x + item.width);
    // A line's size is its body text's: a superscript or a bullet glyph must not make it a heading.
    if (text.trim().length > 1) current.fontSize = Math.max(current.fontSize, size);
    current.monospace &&= item.monospace || text.trim().length === 0;
  }
  for (const line of lines) line.text = line.text.replace(/\s+/g, " ").trim();
  return lines.filter((line) => line.text.length > 0);
}

/**
 * A line's words with digits masked, in sorted order, and its height on the page: a running line keeps its
 * place, and books mirror it on facing pages ("40 gnuplot 5.4" on the left, "gnuplot 5.4 41" on the right).
 */
function runningKey(line: PdfLine): string {
  const words = line.text.toLowerCase().replace(/\d+/g, "#").split(/\s+/).filter(Boolean).sort();
  return `${Math.round(line.y / 4)}:${words.join(" ")}`;
}

/**
 * The lines at a page's top and bottom edges, where running headers and footers sit: the outermost line at each,
 * and the next one in too on a page full enough to have a two-line header or footer beside its body.
 */
function edgeLines(lines: readonly PdfLine[]): Set<PdfLine> {
  const byHeight = [...lines].sort((a, b) => b.y - a.y);
  const depth = byHeight.length >= 8 ? 2 : 1;
  return new Set([...byHeight.slice(0, depth), ...byHeight.slice(-depth)]);
}

/**
 * Drops running headers and footers: an edge line whose text (digits aside) repeats at the same height at an edge
 * of at least half the pages (three or more), and page numbers standing alone at a page's top or bottom.
 */
export function dropRunningLines(pages: readonly PdfLine[][]): PdfLine[][] {
  const edges = pages.map(edgeLines);
  const pagesWithKey = new Map<string, number>();
  for (const edge of edges) {
    for (const key of new Set([...edge].map(runningKey))) {
      pagesWithKey.set(key, (pagesWithKey.get(key) ?? 0) + 1);
    }
  }
  const needed = Math.max(3, Math.ceil(pages.length / 2));
  return pages.map((lines, index) => {
    const edge = edges[index] as Set<PdfLine>;
    const byHeight = [...lines].sort((a, b) => b.y - a.y);
    const outermost = new Set([byHeight[0], byHeight[byHeight.length - 1]]);
    return lines.filter((line) => {
      if (!edge.has(line)) return true;
      if (outermost.has(line) && pageNumberPattern.test(line.text)) return false;
      return (pagesWithKey.get(runningKey(line)) ?? 0) < needed;
    });
  });
}

/** The most common value, weighted. */
function modeOf(values: Iterable<[value: number, weight: number]>): number | undefined {
  const weights = new Map<number, number>();
  for (const [value, weight] of values) weights.set(value, (weights.get(value) ?? 0) + weight);
  let best: number | undefined;
  for (const [value, weight] of weights)
    if (best === undefined || weight > (weights.get(best) ?? 0)) best = value;
  return best;
}

const round = (value: number) => Math.round(value * 2) / 2;

function wordsOf(pages: readonly PdfLine[][]): Set<string> {
  const words = new Set<string>();
  for (const lines of pages) {
    for (const line of lines)
      for (const word of line.text.toLowerCase().match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) ?? [])
        words.add(word);
  }
  return words;
}

/**
 * Joins a line ending in a hyphen to the next: the hyphen goes ("exam-" + "ple" → "example") unless the
 * document spells the compound with it elsewhere, or the first part ends in a capital or digit ("UTF-8").
 */
function joinHyphenated(before: string, after: string, words: ReadonlySet<string>): string {
  const head = /([\p{L}\p{N}]+)-$/u.exec(before)?.[1] ?? "";
  const tail = /^[\p{L}\p{N}]+/u.exec(after)?.[0] ?? "";
  const keepHyphen =
    /[\p{Lu}\p{N}]$/u.test(head) ||
    (words.has(`${head}-${tail}`.toLowerCase()) && !words.has(`${head}${tail}`.toLowerCase()));
  return keepHyphen ? `${before}${after}` : `${before.slice(0, -1)}${after}`;
}

interface Paragraph {
  kind: "paragraph" | "list_item" | "code";
  lines: PdfLine[];
  fontSize: number;
}

function paragraphsOf(lines: readonly PdfLine[], lineGap: number): Paragraph[] {
  const paragraphs: Paragraph[] = [];
  let current: Paragraph | undefined;
  let previous: PdfLine | undefined;
  for (const line of lines) {
    const bullet = bulletPattern.test(line.text);
    const gap = previous === undefined ? 0 : previous.y - line.y;
    const startsNew =
      current === undefined ||
      previous === undefined ||
      bullet ||
      line.monospace !== previous.monospace ||
      Math.abs(line.fontSize - previous.fontSize) > 0.5 ||
      gap > lineGap * 1.35 ||
      gap < -0.5 * line.fontSize;
    if (startsNew || current === undefined) {
      const kind = line.monospace ? "code" : bullet ? "list_item" : "paragraph";
      current = {
        kind,
        lines: [bullet ? { ...line, text: line.text.replace(bulletPattern, "") } : line],
        fontSize: line.fontSize,
      };
      paragraphs.push(current);
    } else {
      current.lines.push(line);
    }
    previous = line;
  }
  return paragraphs;
}

function codeText(lines: readonly PdfLine[]): string {
  // A loop, not Math.min(...xs): a page's code block of 200k+ lines would overflow the call stack.
  let left = Number.POSITIVE_INFINITY;
  for (const line of lines) left = Math.min(left, line.x);
  return lines
    .map((line) => " ".repeat(Math.max(0, Math.round((line.x - left) / (0.6 * line.fontSize)))) + line.text)
    .join("\n");
}

function proseText(lines: readonly PdfLine[], words: ReadonlySet<string>): string {
  let text = "";
  for (const line of lines) {
    if (text.length === 0) text = line.text;
    else if (/[\p{L}\p{N}]-$/u.test(text) && /^\p{Ll}/u.test(line.text))
      text = joinHyphenated(text, line.text, words);
    else text += ` ${line.text}`;
  }
  return text;
}

/** Turns each page's lines into blocks, each with its 1-based page number; larger type becomes headings. */
export function linesToBlocks(pages: readonly PdfLine[][]): DocumentBlock[] {
  const allLines = pages.flat();
  const bodySize = modeOf(allLines.map((line) => [round(line.fontSize), line.text.length])) ?? 10;
  const gaps: [number, number][] = [];
  for (const lines of pages) {
    for (let index = 1; index < lines.length; index++) {
      const [above, below] = [lines[index - 1] as PdfLine, lines[index] as PdfLine];
      const gap = above.y - below.y;
      if (round(below.fontSize) === bodySize && gap > 0 && gap < 3 * bodySize) gaps.push([round(gap), 1]);
    }
  }
  const lineGap = modeOf(gaps) ?? bodySize * 1.2;
  const words = wordsOf(pages);
  const paragraphsPerPage = pages.map((lines) => paragraphsOf(lines, lineGap));
  const isHeading = (paragraph: Paragraph) =>
    paragraph.kind === "paragraph" &&
    paragraph.fontSize >= bodySize * 1.12 &&
    paragraph.lines.length <= 3 &&
    /\p{L}/u.test(paragraph.lines[0]?.text ?? "");
  const headingSizes = [
    ...new Set(
      paragraphsPerPage
        .flat()
        .filter(isHeading)
        .map((paragraph) => round(paragraph.fontSize)),
    ),
  ].sort((a, b) => b - a);
  const blocks: DocumentBlock[] = [];
  paragraphsPerPage.forEach((paragraphs, index) => {
    for (const paragraph of paragraphs) {
      const page = index + 1;
      if (paragraph.kind === "code") {
        blocks.push({ kind: "code", text: codeText(paragraph.lines), page });
      } else if (isHeading(paragraph)) {
        const depth = Math.min(6, headingSizes.indexOf(round(paragraph.fontSize)) + 1);
        blocks.push({ kind: "heading", text: proseText(paragraph.lines, words), depth, page });
      } else {
        blocks.push({ kind: paragraph.kind, text: proseText(paragraph.lines, words), page });
      }
    }
  });
  return blocks;
}
