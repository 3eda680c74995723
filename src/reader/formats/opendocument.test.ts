import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { openDocumentReader } from "./opendocument.js";
import { skipOf as readerSkip } from "./reader-skip.test.util.js";
import { createReaderRegistry } from "./registry.js";
import { DEFAULT_READER_LIMITS, type ReadFileResult } from "./types.js";

// Real OpenDocument packages (a zip with content.xml, meta.xml and the manifest, as LibreOffice writes them), written
// here with fflate's zip writer.

const encode = (text: string) => new TextEncoder().encode(text);
const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"';

function odf(
  body: string,
  { styles = "", manifest = "", title }: { styles?: string; manifest?: string; title?: string } = {},
) {
  return zipSync({
    mimetype: encode("application/vnd.oasis.opendocument.text"),
    "content.xml": encode(
      `<?xml version="1.0"?><office:document-content ${NS}><office:automatic-styles>${styles}</office:automatic-styles><office:body>${body}</office:body></office:document-content>`,
    ),
    "meta.xml": encode(
      `<office:document-meta ${NS}><office:meta>${title === undefined ? "" : `<dc:title>${title}</dc:title>`}</office:meta></office:document-meta>`,
    ),
    "META-INF/manifest.xml": encode(
      `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">${manifest}</manifest:file-entry></manifest:manifest>`,
    ),
  });
}

const read = async (bytes: Uint8Array, path = "doc.odt") =>
  (await openDocumentReader.read({ bytes, path, limits: DEFAULT_READER_LIMITS })) as ReadFileResult;

describe("openDocumentReader", () => {
  it("reads a text document: headings by outline level, paragraphs, code by its style, lists, tables; comments left out", async () => {
    const result = await read(
      odf(
        "<office:text>" +
          '<text:h text:outline-level="1">Roadmap</text:h>' +
          '<text:p text:style-name="Standard">Ship it<text:s text:c="2"/>in Q1<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>After the migration.</text:p></text:note-body></text:note>.<office:annotation><text:p>Is that realistic?</text:p></office:annotation> Then docs.</text:p>' +
          '<text:p text:style-name="P1">$ ragsynth index docs/</text:p><text:p text:style-name="P1">$ ragsynth ask docs/</text:p>' +
          '<text:h text:outline-level="2">Risks &amp; costs</text:h>' +
          "<text:list><text:list-item><text:p>Vendor prices</text:p></text:list-item><text:list-item><text:p>Migration<text:line-break/>slips</text:p></text:list-item></text:list>" +
          "<table:table><table:table-row><table:table-cell><text:p>Team</text:p></table:table-cell><table:table-cell><text:p>Budget</text:p></table:table-cell></table:table-row>" +
          "<table:table-row><table:table-cell><text:p>Search</text:p></table:table-cell><table:table-cell><text:p>120k</text:p></table:table-cell></table:table-row></table:table>" +
          "</office:text>",
        {
          styles:
            '<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Preformatted_20_Text"/>',
          title: "Plan &amp; budget",
        },
      ),
    );
    expect(result.metadata).toEqual({ title: "Plan & budget" });
    expect(result.blocks).toEqual([
      { kind: "heading", depth: 1, text: "Roadmap" },
      // A footnote's text stays where it stands, in parentheses (its number does not); the text after it is read on.
      { kind: "paragraph", text: "Ship it  in Q1 (After the migration.). Then docs." },
      { kind: "code", text: "$ ragsynth index docs/\n$ ragsynth ask docs/" },
      { kind: "heading", depth: 2, text: "Risks & costs" },
      { kind: "list_item", text: "Vendor prices" },
      { kind: "list_item", text: "Migration\nslips" },
      { kind: "table_row", text: "Team | Budget" },
      { kind: "table_row", text: "Search | 120k" },
    ]);
  });

  it("reads a spreadsheet as the XLSX reader does: sheets as headings, rows naming their cells, repeats counted", async () => {
    const cell = (text: string, repeat?: number) =>
      `<table:table-cell${repeat ? ` table:number-columns-repeated="${repeat}"` : ""}>${text ? `<text:p>${text}</text:p>` : ""}</table:table-cell>`;
    const result = await read(
      odf(
        '<office:spreadsheet><table:table table:name="Budget">' +
          `<table:table-row>${cell("Quarterly budget")}</table:table-row>` +
          `<table:table-row>${cell("Team")}${cell("", 2)}${cell("Start")}</table:table-row>` +
          `<table:table-row>${cell("Search")}${cell("", 2)}${cell("02/01/2024")}</table:table-row>` +
          `<table:table-row table:number-rows-repeated="5">${cell("", 1024)}</table:table-row>` +
          `<table:table-row>${cell("Infra")}</table:table-row>` +
          `<table:table-row table:number-rows-repeated="1048000">${cell("", 1024)}</table:table-row>` +
          "</table:table></office:spreadsheet>",
      ),
      "plan.ods",
    );
    expect(result.blocks.map((block) => [block.row, block.kind, block.text])).toEqual([
      [1, "heading", "Budget"],
      [1, "paragraph", "Quarterly budget"],
      [3, "table_row", "Team: Search; Start: 02/01/2024"],
      [9, "table_row", "Team: Infra"],
    ]);
  });

  it("reads a presentation slide by slide: title, outline, text boxes, notes; the page number left out", async () => {
    const frame = (kind: string | undefined, body: string) =>
      `<draw:frame${kind ? ` presentation:class="${kind}"` : ""}><draw:text-box>${body}</draw:text-box></draw:frame>`;
    const result = await read(
      odf(
        "<office:presentation>" +
          '<draw:page draw:name="page1">' +
          frame("title", "<text:p>Roadmap</text:p>") +
          frame(
            "outline",
            "<text:list><text:list-item><text:p>Ship in Q1</text:p></text:list-item></text:list>",
          ) +
          frame("page-number", "<text:p>1</text:p>") +
          `<presentation:notes>${frame("notes", "<text:p>Q1 depends on the migration.</text:p>")}</presentation:notes>` +
          "</draw:page>" +
          '<draw:page draw:name="page2"></draw:page>' +
          `<draw:page draw:name="page3">${frame(undefined, "<text:p>A text box</text:p>")}</draw:page>` +
          "</office:presentation>",
      ),
      "talk.odp",
    );
    expect(result.blocks.map((block) => [block.slide, block.kind, block.text])).toEqual([
      [1, "heading", "Roadmap"],
      [1, "list_item", "Ship in Q1"],
      [1, "heading", "Notes"],
      [1, "paragraph", "Q1 depends on the migration."],
      [3, "heading", "Slide 3"],
      [3, "paragraph", "A text box"],
    ]);
    for (const name of ["a.odt", "b.ODS", "c.odp"])
      expect(createReaderRegistry().readerFor(name)?.reader.format).toBe("opendocument");
  });

  it("skips a document saved with a password as encrypted, and one with no content.xml as corrupt", async () => {
    const skipOf = async (bytes: Uint8Array) => {
      const error = await readerSkip(() => read(bytes));
      return [error.code, error.message];
    };
    expect(
      await skipOf(
        odf("<office:text/>", { manifest: '<manifest:encryption-data manifest:checksum-type="SHA1/1K"/>' }),
      ),
    ).toEqual([
      "encrypted",
      "doc.odt: the document is saved with a password. Save a copy without the password to read it.",
    ]);
    expect(await skipOf(zipSync({ "word/document.xml": encode("<w:document/>") }))).toEqual([
      "corrupt",
      "doc.odt: not an OpenDocument file (no content.xml).",
    ]);
    expect(await skipOf(odf("<office:text><text:p> </text:p></office:text>"))).toEqual([
      "empty",
      "doc.odt: no text in the document.",
    ]);
  });
});
