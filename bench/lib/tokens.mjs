// The one tokenizer both libraries are measured with: gpt-tokenizer 4, cl100k_base (installed in
// bench/ under the alias `gpt-tokenizer-4`, see BENCHMARKS.md for why).
import { countTokens, decode, encode } from "gpt-tokenizer-4/encoding/cl100k_base";

const plainText = { disallowedSpecial: new Set() };

/** cl100k tokens of `text`, special-token strings counted as plain text. */
export function cl100kCount(text) {
  return text.length === 0 ? 0 : countTokens(text, plainText);
}

export function cl100kEncode(text) {
  return text.length === 0 ? [] : encode(text, plainText);
}

export function cl100kDecode(tokens) {
  return decode(tokens);
}
