import { describe, expect, it } from "vitest";
import { mdxReader } from "./mdx.js";
import { DEFAULT_READER_LIMITS } from "./types.js";

const read = (text: string) =>
  Promise.resolve(
    mdxReader.read({ bytes: new TextEncoder().encode(text), path: "doc.mdx", limits: DEFAULT_READER_LIMITS }),
  );

const page = `---
title: Install
---
import { Tabs, Tab } from "./tabs";
export const meta = { secret: "not text" };

# Install {props.product}

<Tabs>
  <Tab label="npm">
  Run the **installer** with \`npm i ragsynth\`.
  </Tab>
</Tabs>

- one <Badge>new</Badge>
- [x] two

| option | default |
|---|---|
| \`timeout\` | {defaults.timeout} |

\`\`\`ts
import x from "y"; // code keeps its imports
\`\`\`
`;

describe("mdxReader", () => {
  it("drops imports, exports and expressions, keeps text inside components, with line ranges", async () => {
    const { blocks, metadata } = await read(page);
    expect(metadata).toBeUndefined();
    expect(blocks).toEqual([
      { kind: "heading", text: "Install", depth: 1, lines: { start: 7, end: 7 } },
      { kind: "paragraph", text: "Run the installer with `npm i ragsynth`.", lines: { start: 11, end: 11 } },
      { kind: "list_item", text: "one new", lines: { start: 15, end: 15 } },
      { kind: "list_item", text: "[x] two", lines: { start: 16, end: 16 } },
      { kind: "table_row", text: "option | default", lines: { start: 18, end: 18 } },
      { kind: "table_row", text: "`timeout` |", lines: { start: 20, end: 20 } },
      {
        kind: "code",
        text: 'import x from "y"; // code keeps its imports',
        language: "ts",
        lines: { start: 22, end: 24 },
      },
    ]);
    expect(JSON.stringify(blocks)).not.toContain("secret");
  });

  it("reads a file MDX cannot parse as Markdown, says so, and keeps the line numbers", async () => {
    const broken = 'import A from "a"\n\n# Title\n\n<Open>\n\nStill **read** here.\n';
    const { blocks, metadata } = await read(broken);
    expect(metadata?.mdx_fallback).toMatch(/not valid MDX \(.*closing tag.*\); read as Markdown/);
    expect(blocks).toEqual([
      { kind: "heading", text: "Title", depth: 1, lines: { start: 3, end: 3 } },
      { kind: "paragraph", text: "Still read here.", lines: { start: 7, end: 7 } },
    ]);
  });

  it("skips a file with no text as empty and invalid UTF-8 with its reason", async () => {
    await expect(read('import A from "a"\nexport const b = 1\n')).rejects.toMatchObject({ code: "empty" });
    await expect(
      Promise.resolve(
        mdxReader.read({
          bytes: new Uint8Array([0x23, 0x20, 0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]),
          path: "x.mdx",
          limits: DEFAULT_READER_LIMITS,
        }),
      ),
    ).rejects.toMatchObject({ code: "invalid_utf8" });
  });
});

describe("mdxReader lists", () => {
  it("ends a list item's lines before its nested list, which gets its own items", async () => {
    const { blocks } = await read("- outer\n  - inner one\n  - inner two\n- last\n");
    expect(blocks.map((block) => [block.text, block.lines])).toEqual([
      ["outer", { start: 1, end: 1 }],
      ["inner one", { start: 2, end: 2 }],
      ["inner two", { start: 3, end: 3 }],
      ["last", { start: 4, end: 4 }],
    ]);
  });
});
