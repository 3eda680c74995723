// Han, kana and CJK punctuation (、。「」，！？ and full-width forms): text written without spaces.
const CJK_END = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]$/u;
const CJK_START = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/**
 * Joins sentences with one space, as LlamaIndex does, except between two Chinese or Japanese sentences,
 * which are written without one. Each sentence is trimmed first and empty ones are dropped. The inverse
 * of `splitSentences` for the optimizer's kept sentences and the extractive answerer's answer.
 */
export function joinSentences(sentences: readonly string[]): string {
  let text = "";
  for (const raw of sentences) {
    const sentence = raw.trim();
    if (sentence === "") continue;
    if (text !== "" && !(CJK_END.test(text) && CJK_START.test(sentence))) text += " ";
    text += sentence;
  }
  return text;
}
