// Reading a judge's reply. Stricter than LlamaIndex on purpose: its YES/NO judges pass any reply that contains
// "yes" anywhere ("eyes", "I can't say yes"), and its score parser raises on a one-line reply. Here a reply that
// cannot be read is a parse failure, which the results count as a failure, never as a pass.

/** A parsed verdict, or why the reply could not be read. */
export type ParsedReply = { ok: true; score: number; feedback: string } | { ok: false; error: string };

/**
 * A YES/NO judge's reply: YES (score 1) or NO (score 0) as its first word, or as the only one of the two words
 * that occurs in it; anything else (both, neither, empty) is a parse failure.
 * @example parseYesNo("YES, the context says so.") // { ok: true, score: 1, … }
 */
export function parseYesNo(reply: string): ParsedReply {
  const text = reply.trim();
  const first = /^[^\p{L}]*(\p{L}+)/u.exec(text)?.[1]?.toLowerCase();
  if (first === "yes" || first === "no") return { ok: true, score: first === "yes" ? 1 : 0, feedback: text };
  const yes = /\byes\b/i.test(text);
  const no = /\bno\b/i.test(text);
  if (yes !== no) return { ok: true, score: yes ? 1 : 0, feedback: text };
  return {
    ok: false,
    error:
      text === ""
        ? "the judge replied with nothing"
        : `expected YES or NO, got ${JSON.stringify(text.slice(0, 120))}`,
  };
}

/**
 * A correctness judge's reply: a number from 1 to 5 alone on the first non-empty line (LlamaIndex reads
 * `float(first line)`), the reasoning after it. A number outside 1–5 is a parse failure.
 * @example parseScore("4.5\nCorrect but verbose.") // { ok: true, score: 4.5, feedback: "Correct but verbose." }
 */
export function parseScore(reply: string): ParsedReply {
  const text = reply.replace(/^\s*\n/, "").trimStart();
  if (text.trim() === "") return { ok: false, error: "the judge replied with nothing" };
  const newline = text.indexOf("\n");
  const first = (newline === -1 ? text : text.slice(0, newline)).trim();
  const feedback = newline === -1 ? "" : text.slice(newline + 1).replace(/^\n+/, "");
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(first)) {
    return {
      ok: false,
      error: `expected a score from 1 to 5 on the first line, got ${JSON.stringify(first.slice(0, 120))}`,
    };
  }
  const score = Number(first);
  if (score < 1 || score > 5) return { ok: false, error: `expected a score from 1 to 5, got ${score}` };
  return { ok: true, score, feedback };
}
