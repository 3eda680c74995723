import { escapeHtml } from "./html.js";

/** One citation of the answer, as the trace page takes it (the shape of a `Citation`, by number). */
export interface PageCitation {
  /** Offset of the marker in the answer text. */
  offset: number;
  /** The marker as shown: `[2]`, `[1, 3]` (one marker naming two sources is two citations at one offset). */
  marker: string;
  /** The source's number: the page's source `[N]`. */
  source: number;
  /** Under the support threshold. */
  unsupported: boolean;
  /** How it was scored, for the tooltip: `lexical 0.20`. */
  score?: string | undefined;
}

/** A stretch of the answer: plain text, or a marker with a link per source it names. */
export type AnswerPart =
  | { text: string }
  | { marker: string; links: Array<{ source: number; unsupported: boolean; score?: string }> };

/**
 * The answer cut at its citation markers, each marker's numbers as links. `clip` cleans each text stretch (secrets
 * scrubbed); at most `limit` characters of text are kept, as the plain answer is clipped.
 */
export function citedAnswerParts(
  answer: string,
  citations: readonly PageCitation[],
  clip: (text: string) => string,
  limit: number,
): AnswerPart[] {
  const byOffset = new Map<number, PageCitation[]>();
  for (const citation of citations) {
    const inRange =
      Number.isInteger(citation.offset) &&
      answer.startsWith(citation.marker, citation.offset) &&
      citation.marker !== "";
    if (inRange) byOffset.set(citation.offset, [...(byOffset.get(citation.offset) ?? []), citation]);
  }
  const parts: AnswerPart[] = [];
  let at = 0;
  let kept = 0;
  const text = (end: number) => {
    const piece = clip(answer.slice(at, end)).slice(0, Math.max(0, limit - kept));
    kept += piece.length;
    if (piece !== "") parts.push({ text: piece });
  };
  for (const offset of [...byOffset.keys()].sort((a, b) => a - b)) {
    if (offset < at) continue;
    const group = byOffset.get(offset) ?? [];
    text(offset);
    // The text ran out of room before this marker: the shown answer ends there.
    if (kept >= limit) return parts;
    const marker = group[0]?.marker ?? "";
    parts.push({
      marker,
      links: group.map((citation) => ({
        source: citation.source,
        unsupported: citation.unsupported,
        ...(citation.score ? { score: clip(citation.score).slice(0, 80) } : {}),
      })),
    });
    at = offset + marker.length;
  }
  if (kept < limit) text(answer.length);
  return parts;
}

/** The answer's HTML: each cited number links to its source card (`#source-N`); unsupported ones are marked. */
export function renderCitedAnswer(parts: readonly AnswerPart[]): string {
  return parts
    .map((part) => {
      if ("text" in part) return escapeHtml(part.text);
      const links = part.links.map((link) => {
        const title = `${link.unsupported ? "unsupported: the source does not carry this sentence's terms" : "supported"}${link.score ? ` (${link.score})` : ""}`;
        return (
          `<a class="cite${link.unsupported ? " unsupported" : ""}" href="#source-${link.source}" ` +
          `data-source="${link.source - 1}" title="${escapeHtml(title)}">${link.source}${link.unsupported ? "?" : ""}</a>`
        );
      });
      return `<span class="marker">[${links.join(", ")}]</span>`;
    })
    .join("");
}

/** Styles for the linked markers. */
export const CITED_ANSWER_STYLE =
  ".marker a.cite{color:var(--accent);text-decoration:none;font-weight:600}" +
  ".marker a.cite.unsupported{color:var(--bad);text-decoration:underline wavy var(--bad)}";
