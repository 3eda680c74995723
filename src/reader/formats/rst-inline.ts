// reStructuredText inline markup → plain text, for the RST reader: roles (`:func:`open`` → `open`), references,
// emphasis, literals and escapes. Literal spans (``…``) are cut out first so nothing inside them is rewritten.

/** The text a role or reference shows: `text <target>` → `text`; `~a.b.c` → `c`; `!name` → `name`. */
function shownText(body: string): string {
  const titled = /^([\s\S]*?)\s*<([^<>]*)>$/.exec(body);
  if (titled) return titled[1] || (titled[2] ?? "");
  if (body.startsWith("~")) return body.slice(1).split(".").pop() ?? "";
  if (body.startsWith("!")) return body.slice(1);
  return body;
}

function plainSegment(text: string): string {
  return text
    .replace(/:[\w.:+-]+:`([^`]*)`/g, (_, body: string) => shownText(body))
    .replace(/`([^`]*)`:[\w.:+-]+:/g, (_, body: string) => shownText(body))
    .replace(/`([^`]+)`__?/g, (_, body: string) => shownText(body))
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\*\*(\S(?:[^*]*\S)?)\*\*/g, "$1")
    .replace(/(^|[\s(["'])\*(\S(?:[^*]*\S)?)\*/g, "$1$2")
    .replace(/\s*\[(?:#[\w-]*|\*|\d+|[A-Za-z][\w.-]*)\]_/g, "")
    .replace(/\|([^|\s](?:[^|]*[^|\s])?)\|(?:__?)?/g, "$1")
    .replace(/(^|[\s(])([A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?)__?(?=$|[\s.,;:!?)])/g, "$1$2")
    .replace(/\\(.)/g, "$1")
    .replace(/\\$/g, "");
}

/** Strips RST inline markup from a line or paragraph, keeping the text a reader sees. */
export function rstInline(text: string): string {
  if (!/[`*|_\\:[]/.test(text)) return text;
  let out = "";
  let index = 0;
  const literal = /``(.+?)``/g;
  for (let match = literal.exec(text); match !== null; match = literal.exec(text)) {
    out += plainSegment(text.slice(index, match.index)) + match[1];
    index = match.index + match[0].length;
  }
  return out + plainSegment(text.slice(index));
}
