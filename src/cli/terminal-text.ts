import { jsonEscape } from "../util/json-escape.js";

// What the CLI prints comes mostly from outside it: file names, the text of documents, a model's reply, a server's
// error. A control character in any of those is obeyed by the terminal it reaches: ESC [2J clears the screen, OSC 0
// sets the window title, OSC 52 writes the clipboard (in terminals that allow it), a carriage return or cursor
// movement writes over the lines above (an answer's Sources, forged), and a bidirectional override reorders the
// characters shown (a file name read backwards). So every byte the CLI writes to stdout and stderr goes through
// {@link terminalSink}, which writes those characters as text (`\u001b`) instead, and the CLI's own colours and
// progress line are written with {@link ownControl}, whose mark only this process knows.

/**
 * The characters a terminal would obey rather than show: C0 controls but tab, line feed and form feed (a page break
 * in GNU's text files; a terminal only moves down a line for it), a carriage return except before a line feed
 * (Windows line ends), DEL, C1 controls (U+009B is CSI on its own), and the bidirectional embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069, "Trojan Source").
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is matched
const OBEYED = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;
const OBEYED_ALL = new RegExp(OBEYED.source, "g");

/**
 * The mark standing for a control character of the CLI's own, followed by its code in two hex digits: random per
 * process and never written out, so no file name, document or reply can carry it. The private-use characters
 * around it are left as they are by {@link terminalText} (a document's own are shown, not obeyed: they do nothing).
 * Sixteen base-36 digits (~82 bits) from Math.random: nothing the process writes shows its state, and loading
 * node:crypto would cost every start a few milliseconds.
 */
const MARK = `\u{E000}${Array.from({ length: 16 }, () => Math.floor(Math.random() * 36).toString(36)).join("")}\u{E001}`;
const OWN = new RegExp(`${MARK}([0-9a-f]{2})`, "g");
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters of the CLI's own sequences
const CONTROL = /[\u0000-\u001f]/g;

/**
 * `sequence` (the CLI's own escape codes: a colour, the progress line's "erase line") as {@link terminalText} lets
 * through: its control characters marked as the process's own.
 */
export function ownControl(sequence: string): string {
  return sequence.replace(
    CONTROL,
    (character) => `${MARK}${character.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/**
 * `text` as safe to write to a terminal: every character a terminal would obey (see `OBEYED`) written as JSON
 * writes it (`\u001b`), so `--json` output parses to the same values; then the CLI's own control characters
 * ({@link ownControl}) as themselves.
 */
export function terminalText(text: string): string {
  const shown = OBEYED.test(text) ? text.replace(OBEYED_ALL, jsonEscape) : text;
  return shown.includes(MARK)
    ? shown.replace(OWN, (_, code: string) => String.fromCharCode(Number.parseInt(code, 16)))
    : shown;
}

/** Wraps a sink (`io.ts`'s `TextSink`) so everything written to it goes through {@link terminalText}. */
export function terminalSink(sink: { write(text: string): void }): { write(text: string): void } {
  return { write: (text) => sink.write(terminalText(text)) };
}
