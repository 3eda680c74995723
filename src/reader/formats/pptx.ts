/**
 * PowerPoint presentations (PPTX, and PPTM: the same package with macros, which are not run or read). LlamaIndex's
 * `SimpleDirectoryReader` reads them by default; here they were skipped as binary. A deck is a zip of XML parts
 * (ECMA-376, PresentationML): `ppt/presentation.xml` lists the slides in order, each `ppt/slides/slideN.xml` holds its
 * shapes' text (`<a:p>` paragraphs of `<a:t>` runs) and tables, and its speaker notes are a part of their own. The
 * zip is checked by the zip guard and the XML walked with htmlparser2 in XML mode (a dependency already, streaming:
 * no tree, no depth limit to pass). `officeparser`, the one npm library that reads PPTX, gives a deck's text as one
 * string (no slides, titles or notes apart) and brings its own zip and PDF libraries.
 *
 * Each slide becomes its title as a heading (`Slide 3` when it has none), then its text: a body placeholder's
 * paragraphs as list items (a slide's bullets), a text box's as one paragraph, a table's rows as rows; then its
 * notes under a `Notes` heading. Every block knows its slide. Left out: slide numbers, dates and footers
 * (placeholders repeated on every slide), and charts and SmartArt, whose text lives in parts of their own.
 */

import { CORE_PROPERTIES, packageTitle, refuseCompoundFile } from "./office-package.js";
import { walkXml } from "./streaming-parser.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";
import { checkZip } from "./zip-guard.js";

const PRESENTATION = "ppt/presentation.xml";
const PRESENTATION_RELS = "ppt/_rels/presentation.xml.rels";
const SLIDE = /^ppt\/slides\/slide\d+\.xml$/;
const SLIDE_RELS = /^ppt\/slides\/_rels\/slide\d+\.xml\.rels$/;
const NOTES = /^ppt\/notesSlides\/notesSlide\d+\.xml$/;
// Placeholders repeated on every slide or page of notes: furniture, not what a slide says.
const FURNITURE = new Set(["sldNum", "dt", "ftr", "hdr", "sldImg"]);
const TITLES = new Set(["title", "ctrTitle"]);

/** Reads PowerPoint decks (`.pptx`, `.pptm`; a legacy `.ppt` is refused with how to convert it). */
export const pptxReader: DocumentReader = {
  format: "pptx",
  extensions: [".pptx", ".pptm", ".ppt"],
  async read({ bytes, path, limits, signal }: ReaderInput): Promise<ReadFileResult> {
    refuseCompoundFile(bytes, path, { name: "PPTX", legacy: "PowerPoint (.ppt)", ending: ".pptx" });
    const { entries, text } = await checkZip({
      bytes,
      path,
      limits,
      keep: (name) =>
        name === PRESENTATION ||
        name === PRESENTATION_RELS ||
        name === CORE_PROPERTIES ||
        SLIDE.test(name) ||
        SLIDE_RELS.test(name) ||
        NOTES.test(name),
    });
    signal?.throwIfAborted();
    const slides = slideParts(text(PRESENTATION), text(PRESENTATION_RELS), [...entries.keys()]);
    if (slides.length === 0)
      throw new ReaderSkipError(
        "corrupt",
        `${path}: not a PowerPoint deck (no slides in ppt/presentation.xml).`,
      );
    const blocks: DocumentBlock[] = [];
    for (const [index, part] of slides.entries()) {
      const slide = index + 1;
      const shapes = readShapes(text(part) ?? "");
      const title = shapes.find((shape) => shape.placeholder !== undefined && TITLES.has(shape.placeholder));
      const heading = title?.paragraphs.join(" ").trim() || `Slide ${slide}`;
      const content: DocumentBlock[] = [];
      for (const shape of shapes) {
        if (shape === title) continue;
        for (const block of shapeBlocks(shape)) content.push({ ...block, slide });
      }
      const notesPart = notesOf(part, text(relsOf(part)));
      const notes = notesPart === undefined ? [] : notesParagraphs(text(notesPart) ?? "");
      if (content.length === 0 && notes.length === 0 && title === undefined) continue;
      blocks.push({ kind: "heading", text: heading, depth: 1, slide });
      for (const block of content) blocks.push(block);
      if (notes.length > 0) {
        blocks.push({ kind: "heading", text: "Notes", depth: 2, slide });
        for (const note of notes) blocks.push({ kind: "paragraph", text: note, slide });
      }
    }
    if (blocks.length === 0)
      throw new ReaderSkipError("empty", `${path}: no text on any of its ${slides.length} slides.`);
    const metadata: Record<string, string | number> = { slide_count: slides.length };
    const title = packageTitle(entries.get(CORE_PROPERTIES));
    if (title) metadata.title = title;
    return { blocks, metadata };
  },
};

/**
 * The slides' part names in the presentation's order: its slide list's relationship ids through its relationships;
 * without them (a damaged deck), the slide parts by their numbers.
 */
function slideParts(
  presentation: string | undefined,
  rels: string | undefined,
  names: readonly string[],
): string[] {
  const targets = relationships(rels, "ppt/");
  const ordered: string[] = [];
  for (const match of (presentation ?? "").matchAll(/<p:sldId\b[^>]*?\br:id="([^"]+)"/g)) {
    const target = targets.get(match[1] as string)?.target;
    if (target !== undefined && names.includes(target) && !ordered.includes(target)) ordered.push(target);
  }
  if (ordered.length > 0) return ordered;
  const number = (name: string) => Number(/(\d+)\.xml$/.exec(name)?.[1]);
  return names.filter((name) => SLIDE.test(name)).sort((left, right) => number(left) - number(right));
}

/** A part's relationships: id → its target as a part name (resolved against `base`, the part's folder) and type. */
function relationships(xml: string | undefined, base: string): Map<string, { target: string; type: string }> {
  const found = new Map<string, { target: string; type: string }>();
  for (const match of (xml ?? "").matchAll(/<Relationship\b([^>]*)\/?>/g)) {
    const attributes = match[1] as string;
    const id = /\bId="([^"]+)"/.exec(attributes)?.[1];
    const target = /\bTarget="([^"]+)"/.exec(attributes)?.[1];
    if (id === undefined || target === undefined || /\bTargetMode="External"/.test(attributes)) continue;
    found.set(id, {
      target: resolvePart(base, target),
      type: /\bType="([^"]+)"/.exec(attributes)?.[1] ?? "",
    });
  }
  return found;
}

/** `slides/slide1.xml` against `ppt/` → `ppt/slides/slide1.xml`; `../notesSlides/n.xml` against `ppt/slides/`. */
function resolvePart(base: string, target: string): string {
  const parts = target.startsWith("/") ? [] : base.split("/").filter(Boolean);
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

/** `ppt/slides/slide3.xml` → `ppt/slides/_rels/slide3.xml.rels`. */
function relsOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash)}/_rels/${part.slice(slash + 1)}.rels`;
}

/** The slide's notes part, through its relationships. */
function notesOf(part: string, rels: string | undefined): string | undefined {
  for (const { target, type } of relationships(rels, part.slice(0, part.lastIndexOf("/") + 1)).values())
    if (type.endsWith("/notesSlide")) return target;
  return undefined;
}

/** A shape's text: its placeholder type (`title`, `body`…; `obj` for an untyped one) when it is one. */
interface Shape {
  placeholder: string | undefined;
  paragraphs: string[];
  rows: string[][];
}

/** The text shapes of a slide or notes part, in document order (a group's shapes as their own). */
function readShapes(xml: string): Shape[] {
  const shapes: Shape[] = [];
  let shape: Shape | undefined;
  let paragraph: string[] | undefined;
  let row: string[] | undefined;
  let cell: string[] | undefined;
  let inText = false;
  walkXml(xml, {
    onopentag(name, attributes) {
      if (name === "p:sp" || name === "p:graphicFrame")
        shape = { placeholder: undefined, paragraphs: [], rows: [] };
      else if (name === "p:ph" && shape) shape.placeholder = attributes.type ?? "obj";
      else if (name === "a:tr") row = [];
      else if (name === "a:tc") cell = [];
      else if (name === "a:p") paragraph = [];
      else if (name === "a:t") inText = true;
      else if (name === "a:br") paragraph?.push("\n");
    },
    ontext(text) {
      if (inText) paragraph?.push(text);
    },
    onclosetag(name) {
      if (name === "a:t") inText = false;
      else if (name === "a:p" && paragraph) {
        const text = paragraph
          .join("")
          .replace(/[ \t]+\n|\n[ \t]+/g, "\n")
          .trim();
        if (text !== "") (cell ?? shape?.paragraphs)?.push(text);
        paragraph = undefined;
      } else if (name === "a:tc" && cell) {
        row?.push(cell.join(" ").replace(/\s+/g, " "));
        cell = undefined;
      } else if (name === "a:tr" && row) {
        if (row.some((text) => text !== "")) shape?.rows.push(row);
        row = undefined;
      } else if ((name === "p:sp" || name === "p:graphicFrame") && shape) {
        if (shape.paragraphs.length > 0 || shape.rows.length > 0) shapes.push(shape);
        shape = undefined;
      }
    },
  });
  return shapes;
}

/** A shape's blocks: a placeholder's paragraphs as list items, a text box's as one paragraph, a table's rows. */
function shapeBlocks(shape: Shape): DocumentBlock[] {
  if (shape.placeholder !== undefined && FURNITURE.has(shape.placeholder)) return [];
  const blocks: DocumentBlock[] = [];
  if (shape.placeholder === undefined || shape.placeholder === "subTitle") {
    if (shape.paragraphs.length > 0) blocks.push({ kind: "paragraph", text: shape.paragraphs.join("\n") });
  } else {
    for (const text of shape.paragraphs) blocks.push({ kind: "list_item", text });
  }
  for (const row of shape.rows) blocks.push({ kind: "table_row", text: row.join(" | ").trim() });
  return blocks;
}

/** A notes part's paragraphs: its body placeholder's (not the slide's picture, number or header). */
function notesParagraphs(xml: string): string[] {
  return readShapes(xml)
    .filter((shape) => shape.placeholder === "body")
    .flatMap((shape) => shape.paragraphs);
}
