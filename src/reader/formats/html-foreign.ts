// Inline <svg> and <math> in HTML: the markup reader (html-blocks.ts) drops them whole, so their content can go
// past the parser unread. Documentation pages carry large ones (SQLite's syntax diagrams are over half the bytes
// of its pages), and tokenizing them was most of the reader's time on such pages.

/** The content of one `<svg>`/`<math>` element: from just after its start tag to the `<` of its end tag. */
export interface ForeignRegion {
  /** The element, lower-cased. */
  name: string;
  /** Index of the first character after the start tag's `>`. */
  start: number;
  /** Index of the `<` of the matching `</svg>`/`</math>`. */
  end: number;
}

// Start tags are looked for by these spellings (a native string search, much faster than a case-insensitive
// pattern over a whole page); another spelling (`<Svg>`) is only parsed as usual.
const FOREIGN_SPELLINGS = ["<svg", "<SVG", "<math", "<MATH"];
// A tag as the parser reads one (quoted attribute values may hold `>`), a comment, or CDATA.
const TOKEN =
  /<(\/?)([a-zA-Z][^\s/>]*)(?:[^>"']|"[^"]*"|'[^']*')*>|<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>/g;
// What a tag inside means to the skip (tags not listed: an element of the SVG or MathML, read as usual).
const VOID = 1; // the parser's void elements: never open
const IMPLIES_CLOSE = 2; // HTML elements whose start tag closes open elements, which could reach outside
const INTEGRATION = 4; // elements inside which the parser reads `<x/>` as a start tag only
const RAW_TEXT = 8; // elements whose content the tokenizer reads as text, to their end tag, wherever they stand
const KINDS = new Map<string, number>();
const kinds: [number, string][] = [
  [
    VOID,
    "area base basefont br col command embed frame hr image img input keygen link meta param source track wbr",
  ],
  [
    IMPLIES_CLOSE,
    "tr th td body li p h1 h2 h3 h4 h5 h6 select input output button datalist textarea option optgroup dd dt " +
      "address article aside blockquote details div dl fieldset figcaption figure footer form header hr main nav " +
      "ol pre section table ul rt rp tbody tfoot",
  ],
  [INTEGRATION, "mi mo mn ms mtext annotation-xml foreignobject desc title"],
  [RAW_TEXT, "script style title textarea xmp iframe noembed noframes"],
];
for (const [kind, names] of kinds)
  for (const name of names.split(" ")) KINDS.set(name, (KINDS.get(name) ?? 0) | kind);

/**
 * The `<svg>`/`<math>` elements of `html` whose content is skippable: every tag inside closed in order (void
 * and self-closing tags aside), no HTML inside that could close elements outside, nothing the parser would read
 * differently from that. Then htmlparser2 reads the same events for the rest of the page whether it reads the
 * content or not. Any other element (or a `<svg` inside a comment, script or attribute value, which the caller
 * checks against the parser) is not listed, and is parsed as usual.
 */
export function foreignRegions(html: string): ForeignRegion[] {
  const regions: ForeignRegion[] = [];
  const next = FOREIGN_SPELLINGS.map((spelling) => html.indexOf(spelling));
  for (;;) {
    let at = -1;
    let which = -1;
    next.forEach((index, spelling) => {
      if (index !== -1 && (at === -1 || index < at)) [at, which] = [index, spelling];
    });
    if (at === -1) return regions;
    const spelling = FOREIGN_SPELLINGS[which] as string;
    const name = spelling.slice(1).toLowerCase();
    const region = skippable(html, at, name);
    const resumeAt = region === undefined ? at + spelling.length : region.end;
    if (region !== undefined) regions.push(region);
    next.forEach((index, other) => {
      if (index !== -1 && index < resumeAt)
        next[other] = html.indexOf(FOREIGN_SPELLINGS[other] as string, resumeAt);
    });
  }
}

/** The region of the `name` element whose start tag begins at `at`, when its content is skippable. */
function skippable(html: string, at: number, name: string): ForeignRegion | undefined {
  TOKEN.lastIndex = at;
  const open = TOKEN.exec(html);
  if (open === null || open.index !== at || open[2]?.toLowerCase() !== name) return undefined; // `<svgx`, `<svg` unclosed
  const start = TOKEN.lastIndex;
  if (html.charCodeAt(start - 2) === 47) return undefined; // `<svg/>`: nothing inside
  const end = endTagAt(html, start, name);
  return end === undefined ? undefined : { name, start, end };
}

/** Where the `name` element whose content starts at `start` ends (its end tag's `<`), when it is skippable. */
function endTagAt(html: string, start: number, name: string): number | undefined {
  const open: string[] = [];
  let integration = 0; // open elements inside which `<x/>` does not close
  TOKEN.lastIndex = start;
  for (let token = TOKEN.exec(html); token !== null; token = TOKEN.exec(html)) {
    let tag = token[2];
    if (tag === undefined) continue; // a comment or CDATA
    let kind = KINDS.get(tag);
    if (kind === undefined) {
      const lower = tag.toLowerCase();
      if (lower !== tag) kind = KINDS.get(lower);
      tag = lower;
    }
    if (token[1] === "/") {
      if (open.length === 0) return tag === name ? token.index : undefined;
      if (open.pop() !== tag) return undefined;
      if (kind !== undefined && kind & INTEGRATION) integration--;
      continue;
    }
    const selfClosing = token[0].charCodeAt(token[0].length - 2) === 47; // "/>"
    if (kind === undefined) {
      if (!selfClosing) open.push(tag);
      else if (integration > 0) return undefined;
      continue;
    }
    if (kind & IMPLIES_CLOSE) return undefined;
    if (kind & VOID) continue;
    if (selfClosing) {
      if (integration > 0) return undefined;
      continue;
    }
    open.push(tag);
    if (kind & INTEGRATION) integration++;
    if (kind & RAW_TEXT) {
      // The tokenizer reads on to the first `</tag`, tags or not.
      const close = html.slice(TOKEN.lastIndex).search(new RegExp(`</${tag}[\\s/>]`, "i"));
      if (close === -1) return undefined;
      TOKEN.lastIndex += close;
    }
  }
  return undefined;
}
