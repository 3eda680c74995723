import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { infoReader } from "./info.js";
import { createReaderRegistry } from "./registry.js";
import { DEFAULT_READER_LIMITS, ReaderSkipError, type ReadFileResult } from "./types.js";

const read = (bytes: Uint8Array, path = "tool.info") =>
  infoReader.read({ bytes, path, limits: DEFAULT_READER_LIMITS }) as ReadFileResult;
const encode = (text: string) => new TextEncoder().encode(text);

// A small manual as makeinfo writes one: preamble, nodes after `^_` lines, an index marker with its NUL and
// backspace bytes, an image marker, cross-references (one over a line break), a menu with text after it, a node
// named in DEL bytes, a node with no title, an @heading inside a node, the tag table and local variables.
const manual = [
  "This is tool.info, produced by makeinfo version 6.8 from tool.texi.",
  "",
  "   Copyright (C) 2026 Somebody.",
  "INFO-DIR-SECTION Utilities",
  "START-INFO-DIR-ENTRY",
  "* tool: (tool).      Frob widgets.",
  "END-INFO-DIR-ENTRY",
  "",
  "\x1f",
  "File: tool.info,  Node: Top,  Next: Invoking,  Up: (dir)",
  "",
  "Tool",
  "****",
  "",
  "This manual is for tool, which frobs widgets.",
  "",
  "* Menu:",
  "",
  "* Invoking::        How to run it.",
  "",
  " -- The Detailed Node Listing --",
  "",
  "Invoking",
  "",
  "* Options::         Every option.",
  "",
  "",
  "\x1f",
  "File: tool.info,  Node: Invoking,  Next: \x7fOptions, in detail\x7f,  Prev: Top,  Up: Top",
  "",
  "1 Invoking tool",
  "***************",
  "",
  "Run it as *note Options::.  For the widgets, *Note Widget",
  "Basics::.",
  "",
  "* Menu:",
  "",
  "* Options::",
  "",
  "   After the menu: the exit status is 0 when every widget was frobbed,",
  "1 otherwise.",
  "",
  '\x00\x08[image src="flow.png" alt="The frobbing flow"\x00\x08]',
  "",
  "Examples",
  "********",
  "",
  "     $ tool --all widgets/",
  "",
  "\x1f",
  "File: tool.info,  Node: \x7fOptions, in detail\x7f,  Prev: Invoking,  Up: Invoking",
  "",
  "‘--all’",
  "     Frob every widget.",
  "",
  "\x1f",
  "File: tool.info,  Node: Index,  Prev: Invoking,  Up: Top",
  "",
  "Index",
  "*****",
  "",
  "\x00\x08[index\x00\x08]",
  "* Menu:",
  "",
  "* --all:                                 Options, in detail.    (line 6)",
  "",
  "\x1f",
  "Tag Table:",
  "Node: Top\x7f300",
  "Node: Invoking\x7f700",
  "\x1f",
  "End Tag Table",
  "",
  "\x1f",
  "Local Variables:",
  "coding: utf-8",
  "End:",
  "",
].join("\n");

describe("infoReader", () => {
  it("reads a manual's nodes: titles as headings, text with its lines, menus and tables left out", () => {
    const result = read(encode(manual));
    expect(result.metadata).toEqual({ title: "Tool" });
    expect(result.blocks.map((block) => [block.kind, block.depth, block.text, block.lines])).toEqual([
      ["heading", 1, "Tool", { start: 12, end: 13 }],
      ["paragraph", undefined, "This manual is for tool, which frobs widgets.", { start: 15, end: 15 }],
      ["heading", 1, "1 Invoking tool", { start: 31, end: 32 }],
      [
        "paragraph",
        undefined,
        "Run it as see Options.  For the widgets, See Widget\nBasics.",
        { start: 34, end: 35 },
      ],
      [
        "paragraph",
        undefined,
        "   After the menu: the exit status is 0 when every widget was frobbed,\n1 otherwise.",
        { start: 41, end: 42 },
      ],
      ["paragraph", undefined, "The frobbing flow", { start: 44, end: 44 }],
      // An @heading inside the node (underlined as a chapter) is the node's part, below its title.
      ["heading", 2, "Examples", { start: 46, end: 47 }],
      ["paragraph", undefined, "     $ tool --all widgets/", { start: 49, end: 49 }],
      // A node with no title is headed by its name (out of its DEL quotes), beside the node before it.
      ["heading", 1, "Options, in detail", { start: 52, end: 52 }],
      ["paragraph", undefined, "‘--all’\n     Frob every widget.", { start: 54, end: 55 }],
    ]);
    const text = result.blocks.map((block) => block.text).join("\n");
    for (const gone of [
      "File:",
      "Menu",
      "Tag Table",
      "Detailed Node Listing",
      "coding",
      "makeinfo",
      "\x7f",
      "\x00",
    ])
      expect(text).not.toContain(gone);
  });

  it("reads a manual as the gzip reader hands it over, and a split manual's parts by their numbered names", async () => {
    const registry = createReaderRegistry();
    expect(registry.readerFor("tool.info")?.reader.format).toBe("info");
    expect(registry.readerFor("find.info-2")?.reader.format).toBe("info");
    expect(registry.readerFor("find.info-12")?.reader.format).toBe("info");
    expect(registry.readerFor("find.info-x")).toBeUndefined();
    const gzip = registry.readerFor("find.info-2.gz")?.reader;
    const result = await gzip?.read({
      bytes: gzipSync(encode(manual)),
      path: "find.info-2.gz",
      limits: DEFAULT_READER_LIMITS,
    });
    expect(result?.metadata).toMatchObject({ inner_format: "info", title: "Tool" });
    expect(result?.blocks[0]?.text).toBe("Tool");
  });

  it("says a split manual's first file only lists its parts, and reads a non-Info .info file as text", () => {
    const main = [
      "This is find.info, produced by makeinfo version 6.8 from find.texi.",
      "",
      "\x1f",
      "Indirect:",
      "find.info-1: 1201",
      "find.info-2: 312546",
      "\x1f",
      "Tag Table:",
      "(Indirect)",
      "Node: Top\x7f1201",
      "\x1f",
      "End Tag Table",
      "",
    ].join("\n");
    let error: unknown;
    try {
      read(encode(main), "find.info");
    } catch (caught) {
      error = caught;
    }
    expect(ReaderSkipError.isInstance(error) && error.code).toBe("empty");
    expect((error as Error).message).toMatch(
      /find\.info: the first file of a split Info manual.*find\.info-1/,
    );
    // A Drupal module's `.info`: settings, no nodes.
    const drupal = read(encode("name = Views\ndescription = Lists content\n\ncore = 7.x\n"), "views.info");
    expect(drupal.blocks.map((block) => block.text)).toEqual([
      "name = Views\ndescription = Lists content",
      "core = 7.x",
    ]);
  });

  it("decodes by the manual's declared coding, and refuses a NUL that is not a marker's", () => {
    const latin = manual
      .replace(/[‘’]/g, "'")
      .replace("coding: utf-8", "coding: iso-8859-1")
      .replace("frobs widgets", "frobs Widgets für alle");
    const bytes = Uint8Array.from(latin, (char) => char.charCodeAt(0));
    expect(read(bytes).blocks[1]?.text).toBe("This manual is for tool, which frobs Widgets für alle.");
    let error: unknown;
    try {
      read(encode(manual.replace("Frob every widget.", "Frob\x00 every widget.")));
    } catch (caught) {
      error = caught;
    }
    expect(ReaderSkipError.isInstance(error) && error.code).toBe("binary");
  });

  // Debian's grep manual, when it is installed: it was skipped as binary (its index marker's NUL byte).
  const grepInfo = "/usr/share/info/grep.info.gz";
  it.skipIf(!existsSync(grepInfo))("reads an installed manual, grep's, by its nodes", async () => {
    const gzip = createReaderRegistry().readerFor("grep.info.gz")?.reader;
    const result = await gzip?.read({
      bytes: readFileSync(grepInfo),
      path: "grep.info.gz",
      limits: DEFAULT_READER_LIMITS,
    });
    const headings = (result?.blocks ?? [])
      .filter((block) => block.kind === "heading")
      .map((block) => block.text);
    expect(headings).toContain("2.1 Command-line Options");
    const text = (result?.blocks ?? []).map((block) => block.text).join("\n");
    expect(text).toContain("--recursive");
    expect(text).not.toMatch(/^File: grep\.info/m);
    expect(text).not.toContain("Tag Table");
  });
});
