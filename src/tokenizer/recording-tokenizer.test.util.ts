// A test tokenizer (not shipped: the package excludes `*.test.*`).
import type { Tokenizer } from "./tokenizer.js";

/**
 * `base`, recording every text handed to `count` in `counted` (in order). It has no `countUpTo`, so a caller's
 * "does it fit?" counts whole texts and shows up in `counted` too. With `pretokenizer`, it keeps `base`'s
 * pre-tokenizer, so packing takes the exact single-pass path it takes with `base`.
 */
export function recordingTokenizer(
  base: Tokenizer,
  { pretokenizer = false }: { pretokenizer?: boolean } = {},
): { tokenizer: Tokenizer; counted: string[] } {
  const counted: string[] = [];
  const tokenizer: Tokenizer = {
    name: base.name,
    count: (text) => {
      counted.push(text);
      return base.count(text);
    },
    encode: (text) => base.encode(text),
    ...(pretokenizer && base.pretokenizer ? { pretokenizer: base.pretokenizer } : {}),
  };
  return { tokenizer, counted };
}
