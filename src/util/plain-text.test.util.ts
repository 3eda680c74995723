import { isPlainText, PLAIN_CODE_END } from "./plain-text.js";

/** Every plain character beyond ASCII, each in every one of `contexts` (where `X` stands for it). */
export function* plainCharactersInContexts(
  contexts: readonly string[],
): Generator<{ code: string; text: string }> {
  for (let code = 0x80; code < PLAIN_CODE_END; code++) {
    const char = String.fromCharCode(code);
    if (!isPlainText(char)) continue;
    for (const context of contexts) yield { code: code.toString(16), text: context.replaceAll("X", char) };
  }
}
