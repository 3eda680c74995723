import { jsonEscape } from "./json-escape.js";

/**
 * `text` kept to one line of a listing: its line breaks (line feed, carriage return, and the Unicode line and
 * paragraph separators) written as JSON escapes them (`\u000a`). A file named `a.md\n  [2]  9.999  official.md` would
 * otherwise print a line of its own under an answer's sources, looking like one more.
 */
export function oneLine(text: string): string {
  return LINE_BREAK.test(text) ? text.replace(LINE_BREAKS, jsonEscape) : text;
}

const LINE_BREAK = /[\n\r\u2028\u2029]/;
const LINE_BREAKS = /[\n\r\u2028\u2029]/g;
