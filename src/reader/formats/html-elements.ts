// Which HTML elements mean what to the markup reader (html-blocks.ts): dropped, block, structural, raw text.

/** Elements whose content is never document text: scripts, styles, page furniture, forms' option lists. */
export const droppedElements = new Set([
  "script",
  "style",
  "template",
  "noscript",
  "nav",
  "footer",
  "aside",
  "svg",
  "math",
  "iframe",
  "object",
  "canvas",
  "select",
  "option",
  "button",
  "dialog",
  "head",
]);
/** ARIA roles of page furniture, dropped like the elements above. */
export const droppedRoles = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "search",
  "menu",
  "menubar",
]);
/**
 * Class names and ids of page furniture that documentation generators write as plain `<div>`s, dropped like the
 * elements above: DocBook's Prev/Up/Next bars (`navheader`, `navfooter`: PostgreSQL's and many Debian manuals),
 * AsciiDoc's `#footer` (git's pages: "Last updated …"), Javadoc's `topNav`/`bottomNav`, Sphinx's and MkDocs'
 * permalink anchors (`<a class="headerlink">¶</a>` after every heading and every definition term: Python's
 * reference would quote `time.time() → float¶`), Node's link to a module's source beside its title (`a.srclink`:
 * "Stream[src]"), SQLite's site header and each page's table of contents (`tagline`,
 * `mainmenu`, `submenu`, `searchmenu`, `fancy_toc`: "Small. Fast. Reliable. Choose any three. Home Menu About
 * Documentation Download License…" opened 210 of its 766 pages; the page's title beside them, `fancy_title`, is
 * kept), Publican's Prev/Home/Next lists (`ul.docnav`, above and below every page of the Debian Administrator's
 * Handbook and Red Hat's and Fedora's older guides), tables of contents (DocBook's and Node's `.toc`, Node's and
 * AsciiDoc's `#toc` and Node's `#gtoc`, Docusaurus' `.table-of-contents`: lists of the page's own headings, or in
 * Node's `all.html` of every page's, whose names matched questions and were quoted as answers), and the common
 * navigation bar, banner and breadcrumb names. Whole names only: `header-anchor` or `navigation-guide` are not
 * furniture.
 */
export const droppedClassNames = new Set([
  "headerlink",
  "srclink",
  "tagline",
  "mainmenu",
  "submenu",
  "searchmenu",
  "fancy_toc",
  "navheader",
  "navfooter",
  "navbar",
  "breadcrumb",
  "breadcrumbs",
  "topNav",
  "bottomNav",
  "docnav",
  "toc",
  "table-of-contents",
]);
export const droppedIds = new Set(["footer", "navbar", "breadcrumbs", "banner", "toc", "gtoc"]);
/**
 * Ids that name furniture only on one element, as `element#id`: Publican's logo links (`<p id="title">`, read as
 * "Product Site Documentation Site" at the top of every page), where an `<h1 id="title">` is the page's title.
 */
export const droppedElementIds = new Set(["p#title"]);

/**
 * Whether an element's `class` or `id` names page furniture ({@link droppedClassNames}, {@link droppedIds},
 * {@link droppedElementIds}).
 */
export function namesFurniture(name: string, attributes: Record<string, string>): boolean {
  const id = attributes.id;
  if (id !== undefined && (droppedIds.has(id) || droppedElementIds.has(`${name}#${id}`))) return true;
  const classes = attributes.class;
  if (classes === undefined) return false;
  for (const className of classes.split(/\s+/)) if (droppedClassNames.has(className)) return true;
  return false;
}
/** Elements that start and end a block of text. */
export const blockElements = new Set([
  "address",
  "article",
  "blockquote",
  "body",
  "caption",
  "center",
  "dd",
  "details",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "form",
  "header",
  "hr",
  "html",
  "legend",
  "main",
  "ol",
  "p",
  "section",
  "summary",
  "table",
  "tbody",
  "tfoot",
  "thead",
  "ul",
  "br",
]);
/** The permalink marks documentation generators (Sphinx, MkDocs) put after a heading's text. */
export const permalinkMarks = /(?:\s*[¶§🔗]+|\s+#)\s*$/u;
/** Elements whose content the tokenizer reads as raw text: a restart must not happen inside one. */
export const rawTextElements = new Set([
  "script",
  "style",
  "textarea",
  "title",
  "xmp",
  "iframe",
  "noembed",
  "noframes",
  "noscript",
  "plaintext",
]);
/** Past this depth the parser starts afresh (see below); at least `maxDepth`. */
export const parserDepthCap = 1024;
/** Elements read as blocks of their own kind, or as table cells. */
export const structuralElements = new Set([
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "li",
  "pre",
  "tr",
  "td",
  "th",
]);
export const headingDepth: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
