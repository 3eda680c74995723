import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { formatNodeLocation, getNodeLocation } from "../../schema/node-location.js";
import { TextNode } from "../../schema/text-node.js";
import { BlockSplitter } from "../../splitter/block-splitter.js";
import { setDocumentBlocks } from "../document-blocks.js";
import { pptxReader } from "./pptx.js";
import { skipOf as readerSkip } from "./reader-skip.test.util.js";
import { createReaderRegistry } from "./registry.js";
import { DEFAULT_READER_LIMITS, type ReadFileResult } from "./types.js";

// Real PPTX packages (a zip of PresentationML parts), written here with fflate's zip writer: the parts and
// relationships PowerPoint writes, trimmed to what a reader meets.

const ns =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const encode = (text: string) => new TextEncoder().encode(text);

/** A text paragraph; `\n` in it is a line break (`<a:br/>`). */
const p = (text: string) =>
  `<a:p>${text
    .split("\n")
    .map((line) => `<a:r><a:rPr lang="en-US"/><a:t>${escapeXml(line)}</a:t></a:r>`)
    .join("<a:br/>")}</a:p>`;
/** A shape: a placeholder of `type` (`""` for an untyped one) or, with `type` undefined, a text box. */
const shape = (type: string | undefined, ...paragraphs: string[]) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${
    type === undefined ? "" : type === "" ? '<p:ph idx="1"/>' : `<p:ph type="${type}"/>`
  }</p:nvPr></p:nvSpPr><p:txBody><a:bodyPr/>${paragraphs.map(p).join("")}</p:txBody></p:sp>`;
const table = (rows: string[][]) =>
  `<p:graphicFrame><a:graphic><a:graphicData><a:tbl>${rows
    .map(
      (row) => `<a:tr>${row.map((cell) => `<a:tc><a:txBody>${p(cell)}</a:txBody></a:tc>`).join("")}</a:tr>`,
    )
    .join("")}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
const slideXml = (...shapes: string[]) =>
  `<?xml version="1.0"?><p:sld ${ns}><p:cSld><p:spTree>${shapes.join("")}</p:spTree></p:cSld></p:sld>`;
const notesXml = (text: string) =>
  `<?xml version="1.0"?><p:notes ${ns}><p:cSld><p:spTree>${shape("sldImg")}${shape("body", text)}${shape("sldNum", "2")}</p:spTree></p:cSld></p:notes>`;

/**
 * A deck whose slides are listed in `order` (part numbers): slide parts are not in presentation order by name (a
 * slide moved in PowerPoint keeps its part).
 */
function deck(
  slides: Record<number, string>,
  order: number[],
  notes: Record<number, string> = {},
  title?: string,
) {
  const files: Record<string, Uint8Array> = {
    "ppt/presentation.xml": encode(
      `<?xml version="1.0"?><p:presentation ${ns}><p:sldIdLst>${order
        .map((n, index) => `<p:sldId id="${256 + index}" r:id="rId${n + 10}"/>`)
        .join("")}</p:sldIdLst></p:presentation>`,
    ),
    "ppt/_rels/presentation.xml.rels": encode(
      `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${order
        .map((n) => `<Relationship Id="rId${n + 10}" Type="${REL}/slide" Target="slides/slide${n}.xml"/>`)
        .join(
          "",
        )}<Relationship Id="rId1" Type="${REL}/hyperlink" Target="https://example.com/" TargetMode="External"/></Relationships>`,
    ),
  };
  for (const [n, xml] of Object.entries(slides)) files[`ppt/slides/slide${n}.xml`] = encode(xml);
  for (const [n, text] of Object.entries(notes)) {
    files[`ppt/notesSlides/notesSlide${n}.xml`] = encode(notesXml(text));
    files[`ppt/slides/_rels/slide${n}.xml.rels`] = encode(
      `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="${REL}/notesSlide" Target="../notesSlides/notesSlide${n}.xml"/></Relationships>`,
    );
  }
  if (title !== undefined)
    files["docProps/core.xml"] = encode(
      `<cp:coreProperties><dc:title>${escapeXml(title)}</dc:title></cp:coreProperties>`,
    );
  return zipSync(files);
}

const read = async (bytes: Uint8Array, path = "deck.pptx") =>
  (await pptxReader.read({ bytes, path, limits: DEFAULT_READER_LIMITS })) as ReadFileResult;
const skipOf = (bytes: Uint8Array) => readerSkip(() => read(bytes));

describe("pptxReader", () => {
  it("reads each slide in the deck's order: its title as a heading, bullets, text boxes, tables, then its notes", async () => {
    const bytes = deck(
      {
        1: slideXml(shape("ctrTitle", "Release planning"), shape("subTitle", "Q1 & Q2")),
        2: slideXml(
          shape("title", "Budget"),
          table([
            ["Team", "Budget"],
            ["Search", "120k"],
          ]),
          shape("sldNum", "3"),
        ),
        3: slideXml(
          shape("title", "Roadmap"),
          shape("", "Ship the index store", "Check citations"),
          shape(undefined, "A text box,\nover two lines"),
          shape("ftr", "Company confidential"),
        ),
      },
      // Part 3 is the second slide, part 2 the third.
      [1, 3, 2],
      { 3: "The Q1 date depends on the migration." },
      "Planning <2027>",
    );
    const result = await read(bytes);
    expect(result.metadata).toEqual({ slide_count: 3, title: "Planning <2027>" });
    expect(result.blocks.map((block) => [block.slide, block.kind, block.depth, block.text])).toEqual([
      [1, "heading", 1, "Release planning"],
      [1, "paragraph", undefined, "Q1 & Q2"],
      [2, "heading", 1, "Roadmap"],
      [2, "list_item", undefined, "Ship the index store"],
      [2, "list_item", undefined, "Check citations"],
      [2, "paragraph", undefined, "A text box,\nover two lines"],
      [2, "heading", 2, "Notes"],
      [2, "paragraph", undefined, "The Q1 date depends on the migration."],
      [3, "heading", 1, "Budget"],
      [3, "table_row", undefined, "Team | Budget"],
      [3, "table_row", undefined, "Search | 120k"],
    ]);
  });

  it("heads an untitled slide by its number, passes over an empty one, and says when a deck has no text", async () => {
    const result = await read(deck({ 1: slideXml(), 2: slideXml(shape(undefined, "Only a box")) }, [1, 2]));
    expect(result.blocks.map((block) => [block.slide, block.text])).toEqual([
      [2, "Slide 2"],
      [2, "Only a box"],
    ]);
    const empty = await skipOf(deck({ 1: slideXml(shape("sldNum", "1")) }, [1]));
    expect([empty.code, empty.message]).toEqual(["empty", "deck.pptx: no text on any of its 1 slides."]);
  });

  it("refuses an encrypted deck, a legacy .ppt and a zip that is no deck, each with its reason", async () => {
    const header = new Uint8Array(512);
    header.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const encrypted = new Uint8Array([
      ...header,
      ...Buffer.from("EncryptedPackage", "utf16le"),
      ...new Uint8Array(64),
    ]);
    expect((await skipOf(encrypted)).code).toBe("encrypted");
    const legacy = await skipOf(header);
    expect(legacy.code).toBe("unsupported");
    expect(legacy.message).toMatch(/legacy PowerPoint \(\.ppt\) file.*Save it as \.pptx/);
    const notADeck = await skipOf(zipSync({ "word/document.xml": encode("<w:document/>") }));
    expect([notADeck.code, notADeck.message]).toEqual([
      "corrupt",
      "deck.pptx: not a PowerPoint deck (no slides in ppt/presentation.xml).",
    ]);
  });

  it("is the reader of .pptx, .pptm and .ppt, and places each chunk on its slides", async () => {
    const registry = createReaderRegistry();
    for (const name of ["talk.pptx", "Talk.PPTM", "old.ppt"])
      expect(registry.readerFor(name)?.reader.format).toBe("pptx");
    const { blocks } = await read(
      deck(
        {
          1: slideXml(shape("title", "One"), shape("", "alpha ".repeat(30).trim())),
          2: slideXml(shape("", "beta ".repeat(30).trim())),
        },
        [1, 2],
      ),
    );
    const document = new TextNode({ id: "deck.pptx", text: "", metadata: { file_path: "deck.pptx" } });
    setDocumentBlocks(document, blocks);
    const places = (chunkSize: number) =>
      new BlockSplitter({ chunkSize, chunkOverlap: 0 })
        .getNodesFromDocuments([document])
        .map((node) => formatNodeLocation(getNodeLocation(node) ?? {}));
    // Small slides share a chunk, as small sections do; one slide to a chunk when they do not fit together.
    expect(places(1024)).toEqual(["deck.pptx slides 1–2"]);
    expect(places(60)).toEqual(["deck.pptx slide 1 › One", "deck.pptx slide 2 › Slide 2"]);
  });
});
