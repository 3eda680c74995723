import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { formatNodeLocation, getNodeLocation } from "../../schema/node-location.js";
import { TextNode } from "../../schema/text-node.js";
import { BlockSplitter } from "../../splitter/block-splitter.js";
import { setDocumentBlocks } from "../document-blocks.js";
import { skipOf as readerSkip } from "./reader-skip.test.util.js";
import { createReaderRegistry } from "./registry.js";
import { DEFAULT_READER_LIMITS, type ReadFileResult } from "./types.js";
import { xlsxReader } from "./xlsx.js";

// Real XLSX packages (a zip of SpreadsheetML parts, as Excel writes them: shared strings, styles, sheets in the
// workbook's order through its relationships), written here with fflate's zip writer.

const encode = (text: string) => new TextEncoder().encode(text);
const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

function workbook(
  sheets: { name: string; xml: string; state?: string }[],
  options: { date1904?: boolean } = {},
) {
  const files: Record<string, Uint8Array> = {
    "xl/workbook.xml": encode(
      `<workbook ${MAIN} ${R}><workbookPr${options.date1904 ? ' date1904="1"' : ""}/><sheets>${sheets
        .map(
          (sheet, index) =>
            `<sheet name="${sheet.name}" sheetId="${index + 1}"${sheet.state ? ` state="${sheet.state}"` : ""} r:id="rId${index + 1}"/>`,
        )
        .join("")}</sheets></workbook>`,
    ),
    // The parts named out of the sheets' order: the workbook's list decides it.
    "xl/_rels/workbook.xml.rels": encode(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
        .map(
          (_sheet, index) =>
            `<Relationship Id="rId${index + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${sheets.length - index}.xml"/>`,
        )
        .join("")}</Relationships>`,
    ),
    "xl/sharedStrings.xml": encode(
      `<sst ${MAIN} count="5" uniqueCount="5"><si><t>Team</t></si><si><t>Budget</t></si><si><t>Start</t></si>` +
        '<si><r><rPr><b/></rPr><t>Sea</t></r><r><t xml:space="preserve">rch &amp; ranking</t></r><rPh sb="0" eb="1"><t>ignored</t></rPh></si>' +
        "<si><t>Quarterly budget</t></si></sst>",
    ),
    "xl/styles.xml": encode(
      `<styleSheet ${MAIN}><numFmts count="4"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/><numFmt numFmtId="165" formatCode="&quot;day&quot; 0.00"/>` +
        '<numFmt numFmtId="166" formatCode="#,##0.0%;[Red]-#,##0.0%"/><numFmt numFmtId="167" formatCode="0&quot; %&quot;"/></numFmts>' +
        '<cellXfs count="7"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="14"/><xf numFmtId="165"/>' +
        '<xf numFmtId="9"/><xf numFmtId="166"/><xf numFmtId="167"/></cellXfs></styleSheet>',
    ),
  };
  sheets.forEach((sheet, index) => {
    files[`xl/worksheets/sheet${sheets.length - index}.xml`] = encode(
      `<worksheet ${MAIN}><sheetData>${sheet.xml}</sheetData></worksheet>`,
    );
  });
  return zipSync(files);
}

const read = async (bytes: Uint8Array) =>
  (await xlsxReader.read({ bytes, path: "plan.xlsx", limits: DEFAULT_READER_LIMITS })) as ReadFileResult;

const budget = [
  '<row r="1"><c r="A1" t="s"><v>4</v></c></row>',
  '<row r="3"><c r="A3" t="s"><v>0</v></c><c r="B3" t="s"><v>1</v></c><c r="C3" t="s"><v>2</v></c></row>',
  '<row r="4"><c r="A4" t="s"><v>3</v></c><c r="B4"><v>120000</v></c><c r="C4" s="1"><v>45293</v></c><c r="D4" s="3"><v>2.5</v></c></row>',
  '<row r="5"><c r="A5" t="inlineStr"><is><t>Infra</t></is></c><c r="C5" s="2"><v>45352.5</v></c></row>',
  '<row r="7"><c r="A7" t="str"><f>"To"&amp;"tal"</f><v>Total</v></c><c r="B7"><f>SUM(B4:B5)</f></c><c r="E7" t="b"><v>1</v></c><c r="F7" t="e"><v>#DIV/0!</v></c></row>',
].join("");

describe("xlsxReader", () => {
  it("reads each sheet in the workbook's order as a table: header, rows naming their cells, dates as dates", async () => {
    const result = await read(
      workbook([
        { name: "Budget", xml: budget },
        { name: "Empty", xml: '<row r="1"><c r="A1"/></row>' },
        {
          name: "Notes &amp; risks",
          xml: '<row r="2"><c r="B2" t="inlineStr"><is><t>Vendor prices</t></is></c></row>',
          state: "hidden",
        },
      ]),
    );
    expect(result.metadata).toEqual({ sheet_count: 3 });
    expect(result.blocks.map((block) => [block.row, block.kind, block.text])).toEqual([
      [1, "heading", "Budget"],
      // A title row of one cell above the header is a paragraph, not the header.
      [1, "paragraph", "Quarterly budget"],
      [4, "table_row", "Team: Search & ranking; Budget: 120000; Start: 2024-01-02; column 4: 2.5"],
      [5, "table_row", "Team: Infra; Start: 2024-03-01 12:00:00"],
      [7, "table_row", "Team: Total; Budget: =SUM(B4:B5); column 5: TRUE; column 6: #DIV/0!"],
      [2, "heading", "Notes & risks"],
      [2, "table_row", "Vendor prices"],
    ]);
  });

  it("shows a percentage as Excel does (built-in and custom formats); a quoted % is text, the number as stored", async () => {
    const growth = [
      '<row r="1"><c r="A1" t="inlineStr"><is><t>Team</t></is></c><c r="B1" t="inlineStr"><is><t>Growth</t></is></c>',
      '<c r="C1" t="inlineStr"><is><t>Margin</t></is></c><c r="D1" t="inlineStr"><is><t>Score</t></is></c></row>',
      '<row r="2"><c r="A2" t="inlineStr"><is><t>Search</t></is></c><c r="B2" s="4"><v>0.256</v></c>',
      '<c r="C2" s="5"><v>-0.1234</v></c><c r="D2" s="6"><v>25</v></c></row>',
    ].join("");
    const result = await read(workbook([{ name: "Growth", xml: growth }]));
    expect(result.blocks.map((block) => block.text)).toContain(
      "Team: Search; Growth: 26%; Margin: -12.3%; Score: 25",
    );
  });

  it("counts days from 1904 in a workbook that says so, and places a chunk on its rows", async () => {
    const dates = workbook([{ name: "S", xml: budget }], { date1904: true });
    expect((await read(dates)).blocks[2]?.text).toContain("Start: 2028-01-03");
    const document = new TextNode({ id: "plan.xlsx", text: "", metadata: { file_path: "plan.xlsx" } });
    setDocumentBlocks(document, (await read(workbook([{ name: "Budget", xml: budget }]))).blocks);
    const [node] = new BlockSplitter().getNodesFromDocuments([document]);
    expect(formatNodeLocation(getNodeLocation(node as TextNode) ?? {})).toBe("plan.xlsx rows 1–7 › Budget");
  });

  it("refuses a legacy .xls, a zip that is no workbook and a workbook with no text, each with its reason", async () => {
    const header = new Uint8Array(512);
    header.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const skipOf = async (bytes: Uint8Array) => {
      const error = await readerSkip(() => read(bytes));
      return [error.code, error.message];
    };
    expect(await skipOf(header)).toEqual([
      "unsupported",
      "plan.xlsx: this is a legacy Excel (.xls) file, not an XLSX. Save it as .xlsx to read it.",
    ]);
    expect(await skipOf(zipSync({ "word/document.xml": encode("<w:document/>") }))).toEqual([
      "corrupt",
      "plan.xlsx: not an Excel workbook (no xl/workbook.xml).",
    ]);
    expect(await skipOf(workbook([{ name: "S", xml: "" }]))).toEqual([
      "empty",
      "plan.xlsx: no cells with text in its 1 sheets.",
    ]);
    for (const name of ["a.xlsx", "B.XLSM", "old.xls"])
      expect(createReaderRegistry().readerFor(name)?.reader.format).toBe("xlsx");
  });
});
