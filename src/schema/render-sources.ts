import { plural } from "../util/format-numbers.js";
import { oneLine } from "../util/one-line.js";
import { copyCount, sourceLabel } from "./node-source.js";
import type { NodeWithScore } from "./text-node.js";

// The sources of an answer or a plan as a terminal shows them: `  [1]  0.812  guide.md:12–30 › Setup  The text…`.

/** How the block marks its heading and the text (the CLI's colors, or plain text). */
export interface SourcesStyle {
  bold(text: string): string;
  dim(text: string): string;
}

/** A retrieval score in the sources' column, six wide: ` 0.812`, or `   -  ` for a node without one. */
export function sourceScore(score: number | undefined): string {
  return score === undefined ? "   -  " : score.toFixed(3).padStart(6);
}

/**
 * The sources block: rank, score, file and place in it ({@link sourceLabel}), how many other files hold the same text
 * (`(+2 copies)`), and the start of the text.
 */
export function renderSources(
  sources: readonly NodeWithScore[],
  style: SourcesStyle,
  columns: number,
): string {
  if (sources.length === 0) return `${style.bold("Sources:")} none\n`;
  const lines = [style.bold("Sources:")];
  sources.forEach((source, index) => {
    const copies = copyCount(source.node);
    const same = copies === 0 ? "" : ` (+${plural(copies, "copy", "copies")})`;
    // A file name or heading with a line break in it stays on its line (one-line.ts).
    const head = `  [${index + 1}] ${sourceScore(source.score)}  ${oneLine(sourceLabel(source.node))}${same}`;
    const room = columns - head.length - 4;
    lines.push(room >= 20 ? `${head}  ${style.dim(snippet(source.node.text, room))}` : head);
  });
  return `${lines.join("\n")}\n`;
}

/** The text on one line, cut with `…` to `width` characters. */
function snippet(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1)).trimEnd()}…` : flat;
}
