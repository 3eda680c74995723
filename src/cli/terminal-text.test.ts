import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ownControl, terminalSink, terminalText } from "./terminal-text.js";

// Written out here, not taken from the module: what a terminal obeys.
const ESC = "\u001b";
const BEL = "\u0007";
const CSI_C1 = "\u009b";
const RLO = "\u202e";
const PDI = "\u2069";
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const OBEYED = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

describe("terminalText", () => {
  it("shows escape sequences, lone carriage returns, backspaces, NUL, DEL and C1 controls as \\u escapes", () => {
    expect(terminalText(`clear ${ESC}[2J here`)).toBe("clear \\u001b[2J here");
    expect(terminalText(`${ESC}]52;c;cm0gLXJmIH4=${BEL}`)).toBe("\\u001b]52;c;cm0gLXJmIH4=\\u0007");
    expect(terminalText(`[1] real.md\r[1] forged.md`)).toBe("[1] real.md\\u000d[1] forged.md");
    expect(terminalText("a\bb\u0000c\u007fd")).toBe("a\\u0008b\\u0000c\\u007fd");
    expect(terminalText(`${CSI_C1}31m`)).toBe("\\u009b31m");
  });

  it("shows the bidirectional overrides and isolates that reorder what a name looks like", () => {
    expect(terminalText(`invoice${RLO}fdp.md`)).toBe("invoice\\u202efdp.md");
    expect(terminalText(`\u2066x${PDI}`)).toBe("\\u2066x\\u2069");
  });

  it("keeps tabs, line ends (Windows' too), form feeds and every printable character", () => {
    const text = "a\tb\nc\r\nd\fé 東京 🦓 مرحبا \u200f";
    expect(terminalText(text)).toBe(text);
  });

  it("lets the CLI's own sequences through, and nothing that only looks like them", () => {
    const red = ownControl(`${ESC}[31m`);
    expect(red).not.toContain(ESC);
    expect(terminalText(`${red}error${ownControl(`${ESC}[39m`)}`)).toBe(`${ESC}[31merror${ESC}[39m`);
    expect(terminalText(ownControl(`\r${ESC}[2K`))).toBe(`\r${ESC}[2K`);
    // The mark's shape without its random part: shown as it is, never turned into ESC.
    const forged = "\u{E000}0000000000\u{E001}1b[2J";
    expect(terminalText(forged)).toBe(forged);
    // A document's ESC beside the CLI's own: only the CLI's is obeyed.
    expect(terminalText(`${red}${ESC}[2J`)).toBe(`${ESC}[31m\\u001b[2J`);
  });

  it("never lets an obeyed character through, and keeps JSON's values (its escapes are JSON's)", () => {
    const anyCharacter = fc.oneof(
      fc.integer({ min: 0, max: 0x2070 }).map((code) => String.fromCharCode(code)),
      fc.constantFrom("\r\n", "\\", '"', "\u{E000}"),
    );
    fc.assert(
      fc.property(fc.array(anyCharacter, { maxLength: 40 }), (characters) => {
        const text = characters.join("");
        expect(terminalText(text)).not.toMatch(OBEYED);
        const json = JSON.stringify({ text, list: [text] });
        expect(JSON.parse(terminalText(json))).toEqual({ text, list: [text] });
      }),
      { numRuns: 2000 },
    );
  });

  it("is what a terminal sink writes", () => {
    const written: string[] = [];
    const sink = terminalSink({ write: (text) => written.push(text) });
    sink.write(`${ESC}[2J`);
    sink.write("plain\n");
    expect(written).toEqual(["\\u001b[2J", "plain\n"]);
  });
});
