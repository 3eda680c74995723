/** Whether every character of `text` is ASCII (true for ""): text a hand-written ASCII path may take as it is. */
export function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 127) return false;
  return true;
}
