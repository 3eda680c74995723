import { describe, expect, it } from "vitest";
import { htmlReader } from "./html.js";
import { DEFAULT_READER_LIMITS, type ReaderLimits, type ReadFileResult } from "./types.js";

async function read(
  html: string | Uint8Array,
  limits: ReaderLimits = DEFAULT_READER_LIMITS,
): Promise<ReadFileResult> {
  const bytes = typeof html === "string" ? new TextEncoder().encode(html) : html;
  return htmlReader.read({ bytes, path: "page.html", limits });
}

const texts = (result: ReadFileResult) => result.blocks.map((block) => block.text);

describe("htmlReader", () => {
  it("keeps headings, paragraphs, list items, code with its language and table rows, with their lines", async () => {
    const html = [
      "<!doctype html><html lang='en'><head><title>The  Guide</title></head><body>",
      "<h1>Install</h1>",
      "<p>Run the <a href='/x'>installer</a> &amp; wait.</p>",
      "<ul><li>First <b>step</b></li>",
      "<li>Second step</li></ul>",
      '<pre><code class="language-ts">const a = 1;',
      "  return a &lt; 2;</code></pre>",
      "<table><tr><th>Option</th><th>Default</th></tr>",
      '<tr><td>timeout</td><td>30 s <img src="clock.png" alt="clock"></td></tr></table>',
      "</body></html>",
    ].join("\n");
    const result = await read(html);
    expect(result.blocks).toEqual([
      { kind: "heading", text: "Install", depth: 1, lines: { start: 2, end: 2 } },
      { kind: "paragraph", text: "Run the installer & wait.", lines: { start: 3, end: 3 } },
      { kind: "list_item", text: "First step", lines: { start: 4, end: 4 } },
      { kind: "list_item", text: "Second step", lines: { start: 5, end: 5 } },
      { kind: "code", text: "const a = 1;\n  return a < 2;", language: "ts", lines: { start: 6, end: 7 } },
      { kind: "table_row", text: "Option | Default", lines: { start: 8, end: 8 } },
      { kind: "table_row", text: "timeout | 30 s clock", lines: { start: 9, end: 9 } },
    ]);
    expect(result.metadata).toMatchObject({ title: "The Guide", language: "en", charset: "utf-8" });
  });

  it("reads two <code> listings in one <pre> (an example's ES module and CommonJS versions) as two code blocks", async () => {
    // As Node's API pages write them: a toggle, then both versions, one shown at a time.
    const html = [
      "<body><h2>Read a file line by line</h2>",
      '<pre class="with-53-chars"><input class="js-flavor-toggle" type="checkbox" checked><code class="language-js mjs">import { open } from "node:fs";',
      "main();</code><code class=\"language-js cjs\">const { open } = require('node:fs');",
      "main();</code></pre>",
      "<pre><code>one</code>\n<code></code></pre>",
      "</body>",
    ].join("\n");
    expect((await read(html)).blocks).toEqual([
      { kind: "heading", text: "Read a file line by line", depth: 2, lines: { start: 1, end: 1 } },
      {
        kind: "code",
        text: 'import { open } from "node:fs";\nmain();',
        language: "js",
        lines: { start: 2, end: 3 },
      },
      {
        kind: "code",
        text: "const { open } = require('node:fs');\nmain();",
        language: "js",
        lines: { start: 3, end: 4 },
      },
      { kind: "code", text: "one", lines: { start: 5, end: 6 } },
    ]);
  });

  it("drops scripts, styles, navigation, header, footer, asides, hidden and template content", async () => {
    const html = `<html><head><style>body { color: red }</style><script>var secretToken = "abc";</script></head>
      <body><header><p>Site banner</p></header><nav><ul><li>Home</li></ul></nav>
      <noscript>Enable JavaScript</noscript><template><p>Template text</p></template>
      <div role="navigation">Breadcrumbs</div><p hidden>Hidden text</p><p aria-hidden="true">Aria hidden</p>
      <p>The real content.</p><aside>Related posts</aside><footer>Copyright</footer>
      <script type="module">import x from "y";</script></body></html>`;
    expect(texts(await read(html))).toEqual(["The real content."]);
  });

  it("drops the navigation bars and footers documentation generators write as named <div>s", async () => {
    // DocBook (PostgreSQL's pages): Prev/Up/Next tables in div.navheader and div.navfooter.
    const docbook = `<body><div class="navheader"><table><tr><th>5.2. Default Values</th></tr>
      <tr><td><a href="ddl-basics.html">Prev</a></td><td>Up</td><td><a href="ddl-generated-columns.html">Next</a></td></tr>
      </table></div><div class="sect1"><h2 class="title">5.2. Default Values</h2><p>A column can be assigned a default value.</p></div>
      <div class="navfooter"><table><tr><td>5.1. Table Basics</td><td>Home</td><td>5.3. Generated Columns</td></tr></table></div></body>`;
    expect(texts(await read(docbook))).toEqual([
      "5.2. Default Values",
      "A column can be assigned a default value.",
    ]);
    // AsciiDoc (git's pages): the title and NAME live in #header and are kept; #footer is "Last updated".
    const asciidoc = `<body><div id="header"><h1>git-add(1) Manual Page</h1><h2>NAME</h2>
      <p>git-add - Add file contents to the index</p></div><div id="content"><p>Adds content.</p></div>
      <div id="footer"><div id="footer-text">Last updated 2023-01-01</div></div></body>`;
    expect(texts(await read(asciidoc))).toEqual([
      "git-add(1) Manual Page",
      "NAME",
      "git-add - Add file contents to the index",
      "Adds content.",
    ]);
    // SQLite's pages (sqlite.org and Debian's sqlite3-doc): the site header, menu and table of contents, unquoted class.
    const sqlite = `<body><div class=nosearch><a href="index.html"><img class="logo" src="logo.gif" alt="SQLite"></a>
      <div class="tagline desktoponly">Small. Fast. Reliable.<br>Choose any three.</div>
      <div class="menu mainmenu"><ul><li><a href="index.html">Home</a><li><a href="copyright.html">License</a></ul></div></div>
      <div class=fancy><div class=nosearch><div class="fancy_title">Quirks</div><div class="fancy_toc"><a href="#fk">4. Foreign Keys</a></div></div>
      <h1 id="fk"><span>4. </span>Foreign Key Enforcement Is Off By Default</h1><p>Use PRAGMA foreign_keys.</p></div></body>`;
    expect(texts(await read(sqlite))).toEqual([
      "SQLite",
      "Quirks",
      "4. Foreign Key Enforcement Is Off By Default",
      "Use PRAGMA foreign_keys.",
    ]);
    // Publican's pages (the Debian Administrator's Handbook): a banner, the logo links and Prev/Home/Next lists above
    // and below each page, which put a sibling page's title into this one's text.
    const publican = `<body><div id="banner"><a href="http://debian-handbook.info/get/"><span class="text">Download the ebook</span></a></div>
      <p id="title"><a class="left" href="http://www.debian.org"><img alt="Product Site" src="left.png" /></a></p>
      <ul class="docnav top"><li class="previous"><a href="sect.user-group-databases.html"><strong>Prev</strong></a></li><li class="home">The Debian Administrator's Handbook</li></ul>
      <div class="section"><div class="titlepage"><h2 class="title" id="title">8.5. Creating Accounts</h2></div><div class="para">Use adduser.</div></div>
      <ul class="docnav"><li class="previous"><a href="sect.user-group-databases.html"><strong>Prev</strong>8.4. User and Group Databases</a></li></ul></body>`;
    expect(texts(await read(publican))).toEqual(["8.5. Creating Accounts", "Use adduser."]);
    // Tables of contents: DocBook's chapter lists, Node's per-page and global ones (all.html's ran to thousands of
    // entries, matching questions by their names), AsciiDoc's #toc.
    const tocs = `<body><div id="gtoc"><ul><li><a href="index.html">Index</a></li></ul></div>
      <details id="toc" open><summary>Table of contents</summary><ul><li><a href="#timers_settimeout">setTimeout(callback[, delay])</a></li></ul></details>
      <div class="toc"><dl class="toc"><dt><a href="apt.html#syntax">6.1.1. Syntax</a></dt></dl></div>
      <h2 id="timers_settimeout">setTimeout(callback[, delay])</h2><p>Schedules execution of a one-time callback after delay milliseconds.</p></body>`;
    expect(texts(await read(tocs))).toEqual([
      "setTimeout(callback[, delay])",
      "Schedules execution of a one-time callback after delay milliseconds.",
    ]);
    // Whole class names only: a heading anchor or a guide about navigation is content.
    const named = `<body><h2 class="header-anchor title">Navigation bars</h2><p class="navigation-guide note">Use a navbar.</p></body>`;
    expect(texts(await read(named))).toEqual(["Navigation bars", "Use a navbar."]);
  });

  it("keeps only <main> or <article> content when the page has it, with the article's own header", async () => {
    const html = `<body><div class="sidebar"><p>Sidebar links</p></div>
      <main><article><header><h1>Release notes</h1></header><p>Version 2 is out.</p></article></main>
      <div><p>Unrelated widget</p></div></body>`;
    expect(texts(await read(html))).toEqual(["Release notes", "Version 2 is out."]);
    const sphinx = `<body><div class="related">Index | Next</div>
      <div role="main"><h1>Intro<a class="headerlink" href="#intro">¶</a></h1><p>Text.</p></div></body>`;
    expect((await read(sphinx)).blocks.map((block) => [block.kind, block.text])).toEqual([
      ["heading", "Intro"],
      ["paragraph", "Text."],
    ]);
  });

  it("drops Sphinx's permalink after a definition term as after a heading", async () => {
    // As Python's library reference writes a function: its signature in a <dt>, the permalink last.
    const html = `<dl class="py function"><dt class="sig sig-object py" id="time.time">
      <span class="sig-prename descclassname"><span class="pre">time.</span></span><span class="sig-name descname"><span class="pre">time</span></span><span class="sig-paren">(</span><span class="sig-paren">)</span> <span class="sig-return">→ float</span><a class="headerlink" href="#time.time" title="Permalink to this definition">¶</a></dt>
      <dd><p>Return the time in seconds since the epoch.</p></dd></dl>`;
    expect((await read(html)).blocks.map((block) => block.text)).toEqual([
      "time.time() → float",
      "Return the time in seconds since the epoch.",
    ]);
  });

  it("drops a heading's permalink (a link to the page's own place whose text is only #, ¶, § or 🔗)", async () => {
    // As Node's API docs write a heading: the mark inside a <span>, then an empty legacy anchor.
    // Node's link to the module's source beside a few titles, `[src]`, goes too.
    const node = `<h2>Readline<a class="srclink" href=https://github.com/nodejs/node/blob/master/lib/readline.js#L1>[src]</a><span><a class="mark" href="#readline" id="readline">#</a></span><a aria-hidden="true" class="legacy" id="readline_readline"></a></h2>
      <h3>Class: <code>InterfaceConstructor</code><span><a class="mark" href="#class-interfaceconstructor">#</a></span></h3>
      <h4>MkDocs<a class="anchor-link" href="#mkdocs" title="Permanent link">¶</a></h4>`;
    expect((await read(node)).blocks.map((block) => block.text)).toEqual([
      "Readline",
      "Class: InterfaceConstructor",
      "MkDocs",
    ]);
    // A link with words, a link elsewhere, and a # that is the heading's own text stay.
    const kept = `<h2><a href="#setup">Setup</a> notes</h2><h2>C<a href="/languages/c-sharp">#</a></h2><h2>C#</h2>`;
    expect((await read(kept)).blocks.map((block) => block.text)).toEqual(["Setup notes", "C#", "C#"]);
  });

  it("reads a nested list as one item per <li>, the outer item's own words apart", async () => {
    const html = "<ul><li>Outer words<ul><li>Inner one</li><li>Inner two</li></ul></li><li>Last</li></ul>";
    expect((await read(html)).blocks.map((block) => [block.kind, block.text])).toEqual([
      ["list_item", "Outer words"],
      ["list_item", "Inner one"],
      ["list_item", "Inner two"],
      ["list_item", "Last"],
    ]);
  });

  it("honours a legacy charset declared in <meta charset>", async () => {
    const head = new TextEncoder().encode('<html><head><meta charset="windows-1252"></head><body><p>caf');
    const tail = new TextEncoder().encode(" quoted</p></body></html>");
    const bytes = new Uint8Array([
      ...head,
      0xe9,
      0x20,
      0x93,
      ...new TextEncoder().encode("x"),
      0x94,
      ...tail,
    ]);
    const result = await read(bytes);
    expect(texts(result)).toEqual(["café “x” quoted"]);
    expect(result.metadata).toMatchObject({ charset: "windows-1252" });
  });

  it("honours a charset in <meta http-equiv=Content-Type>, an XML declaration and a UTF-16 byte-order mark", async () => {
    const latin1 = new TextEncoder().encode(
      '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"><p>Gr  ',
    );
    const bytes = new Uint8Array([...latin1.slice(0, -2), 0xfc, 0xdf, ...new TextEncoder().encode("e</p>")]);
    expect(texts(await read(bytes))).toEqual(["Grüße"]);
    const xhtml = new TextEncoder().encode('<?xml version="1.0" encoding="iso-8859-1"?>\n<html><p>Ol');
    expect(
      texts(await read(new Uint8Array([...xhtml, 0xe9, ...new TextEncoder().encode("!</p></html>")]))),
    ).toEqual(["Olé!"]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("<p>Ünïcode text</p>", "utf16le")]);
    expect(texts(await read(new Uint8Array(utf16)))).toEqual(["Ünïcode text"]);
  });

  it("reads undeclared bytes that are not valid UTF-8 as windows-1252 instead of losing them", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode("<p>na"),
      0xef,
      ...new TextEncoder().encode("ve</p>"),
    ]);
    const result = await read(bytes);
    expect(texts(result)).toEqual(["naïve"]);
    expect(result.metadata).toMatchObject({ charset: "windows-1252" });
  });

  it("reads 100,000 nested elements without a stack overflow, deep content kept as flat text", async () => {
    const depth = 100_000;
    const html = `<p>Before.</p>${"<div>".repeat(depth)}<ul><li>Deep item</li></ul>deep text${"</div>".repeat(depth)}<p>After.</p>`;
    const result = await read(html);
    expect(texts(result)).toEqual(["Before.", "Deep item deep text", "After."]);
    const unclosed = `<p>Start.</p>${"<span><div>".repeat(depth)}tail words`;
    expect(texts(await read(unclosed))).toEqual(["Start.", "tail words"]);
  });

  it("interprets structure down to limits.maxDepth", async () => {
    const html = "<div><div><ul><li>Shallow item</li></ul></div></div>";
    expect((await read(html)).blocks[0]?.kind).toBe("list_item");
    expect((await read(html, { ...DEFAULT_READER_LIMITS, maxDepth: 2 })).blocks).toEqual([
      { kind: "paragraph", text: "Shallow item", lines: { start: 1, end: 1 } },
    ]);
  });

  // The same blocks and lines as before the reader left skippable <svg>/<math> content unparsed (checked against it).
  it("drops inline <svg> and <math> whole, and keeps the text and lines around them, wherever `<svg` is written", async () => {
    const diagram = `<svg viewBox="0 0 9 9">\n${'<path d="M0 0 L9 9"/>\n<text x="1">select-stmt</text>\n'.repeat(3)}</svg>`;
    const html = [
      "<h1>SELECT</h1>",
      `<p>Syntax:</p>${diagram}`,
      "<p>After the diagram.</p>",
      "<math><mi>x</mi><mo>=</mo><mn>1</mn></math><p>After the formula.</p>",
      '<script>var s = "<svg><text>in a script</text></svg>";</script><!-- <svg><text>in a comment</text></svg> -->',
      '<p title="<svg>">Attribute <b>kept</b>.</p><div><svg><g></div><p>Stray end tag.</p></svg>',
    ].join("\n");
    expect((await read(html)).blocks).toEqual([
      { kind: "heading", text: "SELECT", depth: 1, lines: { start: 1, end: 1 } },
      { kind: "paragraph", text: "Syntax:", lines: { start: 2, end: 2 } },
      { kind: "paragraph", text: "After the diagram.", lines: { start: 10, end: 10 } },
      { kind: "paragraph", text: "After the formula.", lines: { start: 11, end: 11 } },
      { kind: "paragraph", text: "Attribute kept.", lines: { start: 13, end: 13 } },
      { kind: "paragraph", text: "Stray end tag.", lines: { start: 13, end: 13 } },
    ]);
  });
});
