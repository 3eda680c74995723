// Builds real DOCX files (a zip of WordprocessingML parts) for the DOCX reader's tests, with fflate's zip writer.
import { zipSync } from "fflate";

const namespaces =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A paragraph, with a paragraph style (`Heading1`…) when given. */
export function paragraph(text: string, styleId?: string): string {
  const properties = styleId === undefined ? "" : `<w:pPr><w:pStyle w:val="${styleId}"/></w:pPr>`;
  return `<w:p>${properties}<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
}

/** A paragraph whose lines are joined by breaks (`<w:br/>`), as pandoc writes a code block, with a paragraph style. */
export function brokenLines(lines: string[], styleId: string): string {
  const runs = lines.map((line) => `<w:r><w:t xml:space="preserve">${escapeXml(line)}</w:t></w:r>`);
  return `<w:p><w:pPr><w:pStyle w:val="${styleId}"/></w:pPr>${runs.join("<w:r><w:br/></w:r>")}</w:p>`;
}

/** A bulleted list item (numbering definition 1), at `level` 0 or more. */
export function listItem(text: string, level = 0): string {
  return (
    `<w:p><w:pPr><w:numPr><w:ilvl w:val="${level}"/><w:numId w:val="1"/></w:numPr></w:pPr>` +
    `<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`
  );
}

/** A table with one paragraph per cell. */
export function table(rows: string[][]): string {
  const cells = (row: string[]) => row.map((cell) => `<w:tc>${paragraph(cell)}</w:tc>`).join("");
  return `<w:tbl>${rows.map((row) => `<w:tr>${cells(row)}</w:tr>`).join("")}</w:tbl>`;
}

const headingStyles = [1, 2, 3, 4, 5, 6]
  .map(
    (level) =>
      `<w:style w:type="paragraph" w:styleId="Heading${level}"><w:name w:val="heading ${level}"/></w:style>`,
  )
  .join("");
// The styles code is kept in: pandoc's "Source Code" and Word's own "HTML Preformatted".
const codeStyles =
  '<w:style w:type="paragraph" w:styleId="SourceCode"><w:name w:val="Source Code"/></w:style>' +
  '<w:style w:type="paragraph" w:styleId="HTMLPreformatted"><w:name w:val="HTML Preformatted"/></w:style>';

export interface MakeDocxOptions {
  /** The body's WordprocessingML (see `paragraph`, `listItem`, `table`). */
  body: string;
  title?: string;
  /** Extra parts to put in the zip, by path. */
  extraParts?: Record<string, Uint8Array>;
}

/** Returns the bytes of a DOCX with the given body, styles for Heading 1–6 and code, and a bullet list definition. */
export function makeDocx({ body, title, extraParts = {} }: MakeDocxOptions): Uint8Array {
  const text = (value: string) => new TextEncoder().encode(value);
  const contentTypes =
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
    "</Types>";
  const rootRelationships =
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
    "</Relationships>";
  const documentRelationships =
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>' +
    "</Relationships>";
  const numbering =
    `<?xml version="1.0" encoding="UTF-8"?><w:numbering ${namespaces}>` +
    '<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl>' +
    '<w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>' +
    '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>';
  const core =
    '<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ' +
    'xmlns:dc="http://purl.org/dc/elements/1.1/">' +
    (title === undefined ? "" : `<dc:title>${escapeXml(title)}</dc:title>`) +
    "</cp:coreProperties>";
  return zipSync({
    "[Content_Types].xml": text(contentTypes),
    "_rels/.rels": text(rootRelationships),
    "docProps/core.xml": text(core),
    "word/_rels/document.xml.rels": text(documentRelationships),
    "word/document.xml": text(
      `<?xml version="1.0" encoding="UTF-8"?><w:document ${namespaces}><w:body>${body}</w:body></w:document>`,
    ),
    "word/styles.xml": text(
      `<?xml version="1.0" encoding="UTF-8"?><w:styles ${namespaces}>${headingStyles}${codeStyles}</w:styles>`,
    ),
    "word/numbering.xml": text(numbering),
    ...extraParts,
  });
}
