import { describe, expect, it } from "vitest";
import { rstReader } from "./rst.js";
import { rstInline } from "./rst-inline.js";
import { DEFAULT_READER_LIMITS, type ReadFileResult } from "./types.js";

const read = (text: string) =>
  rstReader.read({
    bytes: new TextEncoder().encode(text),
    path: "guide.rst",
    limits: DEFAULT_READER_LIMITS,
  }) as ReadFileResult;

const guide = `.. _top:

.. This is a comment
   that spans two lines.

=========
The Guide
=========

Intro with :func:\`open\`, :ref:\`the options <options>\`, \`\`**literal**\`\`, *em* and **strong**.

Install
=======

Run this::

    pip install guide
    guide --help

.. code-block:: python
   :linenos:

   def f():
       return 1

.. note::

   Notes keep their **text**.

Options
-------

- First item
  continues here.
- Second item

  1. Nested enumerated

:timeout: Seconds to wait.
:retries:

term
    Definition of the term.

+------+-------+
| name | value |
+======+=======+
| a    | 1     |
+------+-------+

=====  =====
col    other
=====  =====
x      y
=====  =====

.. versionadded:: 2.1

.. |sub| replace:: substituted
.. image:: picture.png
`;

describe("rstReader", () => {
  it("reads sections, literal and code blocks, directives' bodies, lists, fields and tables with their lines", () => {
    const { blocks, metadata } = read(guide);
    expect(metadata).toEqual({ title: "The Guide" });
    expect(
      blocks.map((block) => [
        block.kind,
        block.text,
        block.depth ?? block.language,
        block.lines?.start,
        block.lines?.end,
      ]),
    ).toEqual([
      ["heading", "The Guide", 1, 6, 8],
      ["paragraph", "Intro with open, the options, **literal**, em and strong.", undefined, 10, 10],
      ["heading", "Install", 2, 12, 13],
      ["paragraph", "Run this:", undefined, 15, 15],
      ["code", "pip install guide\nguide --help", undefined, 17, 18],
      ["code", "def f():\n    return 1", "python", 23, 24],
      ["paragraph", "Notes keep their text.", undefined, 28, 28],
      ["heading", "Options", 3, 30, 31],
      ["list_item", "First item\ncontinues here.", undefined, 33, 34],
      ["list_item", "Second item", undefined, 35, 35],
      ["list_item", "Nested enumerated", undefined, 37, 37],
      ["list_item", "timeout: Seconds to wait.", undefined, 39, 39],
      ["list_item", "retries:", undefined, 40, 40],
      ["list_item", "term\nDefinition of the term.", undefined, 42, 43],
      ["table_row", "name | value", undefined, 46, 46],
      ["table_row", "a | 1", undefined, 48, 48],
      ["table_row", "col | other", undefined, 52, 52],
      ["table_row", "x | y", undefined, 54, 54],
      ["paragraph", "New in version 2.1.", undefined, 57, 57],
    ]);
  });

  it("reduces roles, references and inline markup to their text", () => {
    expect(rstInline(":py:meth:`~pkg.mod.Class.run` and :class:`!Plain`")).toBe("run and Plain");
    expect(rstInline("see `Python <https://python.org>`_ or `the docs`_ or docs_ [1]_ |name|")).toBe(
      "see Python or the docs or docs name",
    );
    expect(rstInline("``__init__`` and snake_case and \\*not emphasis\\*")).toBe(
      "__init__ and snake_case and *not emphasis*",
    );
  });

  it("reads list-table and csv-table directives as rows", () => {
    const { blocks } = read(
      [
        ".. list-table:: Limits",
        "   :header-rows: 1",
        "",
        "   * - Name",
        "     - Value",
        "   * - size",
        "     - 10",
        "",
        ".. csv-table::",
        "",
        '   "a, b",c',
      ].join("\n"),
    );
    expect(blocks.map((block) => [block.kind, block.text, block.lines?.start])).toEqual([
      ["paragraph", "Limits", 1],
      ["table_row", "Name | Value", 4],
      ["table_row", "size | 10", 6],
      ["table_row", "a, b | c", 11],
    ]);
  });

  it("skips a file of only comments as empty and invalid UTF-8 with its reason", () => {
    expect(() => read(".. just a comment\n\n.. _target: https://example.com\n")).toThrow(
      expect.objectContaining({ code: "empty" }),
    );
    expect(() =>
      rstReader.read({
        bytes: new Uint8Array([0x54, 0x69, 0x74, 0x6c, 0x65, 0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]),
        path: "x.rst",
        limits: DEFAULT_READER_LIMITS,
      }),
    ).toThrow(expect.objectContaining({ code: "invalid_utf8" }));
  });
});

describe("rstReader on hostile input", () => {
  it("keeps text nested deeper than limits.maxDepth (or past its work budget) as flat paragraphs instead of recursing", () => {
    const lines = Array.from({ length: 2000 }, (_, index) => `${" ".repeat(index)}level ${index}`);
    const result = rstReader.read({
      bytes: new TextEncoder().encode(lines.join("\n")),
      path: "deep.rst",
      limits: { ...DEFAULT_READER_LIMITS, maxDepth: 64 },
    }) as ReadFileResult;
    const text = result.blocks.map((block) => block.text).join("\n");
    expect(text).toContain("level 0");
    expect(text).toContain("level 1999");
  });
});

describe("rstReader on a long literal block", () => {
  // Found reviewing this round's change: the dedent took Math.min(...indents), one argument per line, and a literal
  // block of 200k+ lines (a log or data dump pasted under `::`) overflowed the call stack, so the file was lost.
  it("reads a 250,000-line literal block whole", () => {
    const body = Array.from({ length: 250_000 }, (_, index) => `    row ${index}`);
    const result = read(`Data\n====\n\nThe dump::\n\n${body.join("\n")}\n`);
    const text = result.blocks.map((block) => block.text).join("\n");
    expect(text).toContain("row 0\n");
    expect(text).toContain("row 249999");
    expect(text).not.toContain("    row 1\n");
  });
});
