/**
 * One character as a JSON string writes it escaped (`\u001b`): how the CLI shows a character a terminal would obey
 * or a line break that would end a listing's line. Inside a JSON string the escape parses back to the character.
 */
export function jsonEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
