// One native scan: 3× faster than a loop over charCodeAt on the bench's paragraphs.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is every ASCII character, controls included
const BEYOND_ASCII = /[^\x00-\x7f]/;

/** Whether every character of `text` is ASCII (true for ""): text a hand-written ASCII path may take as it is. */
export function isAscii(text: string): boolean {
  return !BEYOND_ASCII.test(text);
}
