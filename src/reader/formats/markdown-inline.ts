// Text helpers shared by the two Markdown-to-blocks conversions (markdown-it's tokens for Markdown and notebooks,
// mdast for MDX), so both give a block the same text for the same markup.

const TAG = /<[^>]*>/g;
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const HTML_IMAGE = /<img\b[^>]*>/gi;

/** HTML's text without tags or comments; an `<img>` as `![alt](src)`; entities for `<`, `>`, `&`, quotes decoded. */
export function htmlText(html: string): string {
  const withImages = html.replace(COMMENT, "").replace(HTML_IMAGE, (tag) => {
    const src = attribute(tag, "src");
    return src ? `![${attribute(tag, "alt") ?? ""}](${src})` : "";
  });
  return withImages
    .replace(TAG, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join("\n");
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** Inline code in as many backticks as it needs (one more than its longest run), spaced when it touches one. */
export function inlineCode(value: string): string {
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = value.startsWith("`") || value.endsWith("`") ? " " : "";
  return `${fence}${pad}${value}${pad}${fence}`;
}

/** Runs of whitespace as one space, trimmed (headings and table cells). */
export function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
