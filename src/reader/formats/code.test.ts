import { describe, expect, it } from "vitest";
import { codeReader } from "./code.js";
import { codeLanguageOf } from "./code-languages.js";
import { DEFAULT_READER_LIMITS } from "./types.js";

const read = async (text: string | Uint8Array, path: string) =>
  codeReader.read({
    bytes: typeof text === "string" ? new TextEncoder().encode(text) : text,
    path,
    limits: DEFAULT_READER_LIMITS,
  });

describe("codeReader", () => {
  it("splits TypeScript at top-level units, keeping doc comments and inner blank lines with their function", async () => {
    const source = [
      'import { a } from "./a.js";', // 1
      'import { b } from "./b.js";', // 2
      "", // 3
      "/** Adds. */", // 4
      "export function add(x: number, y: number): number {", // 5
      "  const sum = x + y;", // 6
      "", // 7
      "  return sum;", // 8
      "}", // 9
      "", // 10
      "", // 11
      "export class Box {", // 12
      "  value = 1;", // 13
      "", // 14
      "}", // 15
      "", // 16
    ].join("\n");
    const { blocks, metadata } = await read(source, "src/add.ts");
    expect(metadata).toEqual({ language: "typescript" });
    expect(blocks.map((block) => [block.lines, block.language])).toEqual([
      [{ start: 1, end: 2 }, "typescript"],
      [{ start: 4, end: 9 }, "typescript"],
      [{ start: 12, end: 15 }, "typescript"],
    ]);
    expect(blocks[1]?.text).toBe(source.split("\n").slice(3, 9).join("\n"));
  });

  it("keeps Python decorators and indented bodies with blank lines in one unit", async () => {
    const source = "import os\n\n\n@cache\ndef f(x):\n    y = x\n\n    return y\n\n\nclass A:\n    pass\n";
    const { blocks } = await read(source, "m.py");
    expect(blocks.map((block) => block.lines)).toEqual([
      { start: 1, end: 1 },
      { start: 4, end: 8 },
      { start: 11, end: 12 },
    ]);
    expect(blocks[1]?.text).toBe("@cache\ndef f(x):\n    y = x\n\n    return y");
  });

  it("does not start a unit at a closing line after a blank line", async () => {
    const { blocks } = await read("int main() {\n  return 0;\n\n}\n", "main.c");
    expect(blocks).toEqual([
      { kind: "code", text: "int main() {\n  return 0;\n\n}", language: "c", lines: { start: 1, end: 4 } },
    ]);
  });

  it("maps endings to language names, case-insensitively, ignoring dots in folder names", () => {
    expect(codeLanguageOf("lib/Foo.PM")).toBe("perl");
    expect(codeLanguageOf("x.hpp")).toBe("cpp");
    expect(codeLanguageOf("v1.2/Makefile")).toBeUndefined();
    expect(codeReader.extensions).toContain(".yml");
  });

  it("skips binary, invalid UTF-8 and empty files with their reason", async () => {
    await expect(read(new Uint8Array([0x00, 0x61, 0x73, 0x6d]), "a.go")).rejects.toMatchObject({
      code: "binary",
    });
    await expect(
      read(new Uint8Array([0x78, 0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]), "a.rs"),
    ).rejects.toMatchObject({ code: "invalid_utf8" });
    await expect(read("\n  \n", "a.rb")).rejects.toMatchObject({ code: "empty" });
  });
});
