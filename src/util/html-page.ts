/** Text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** JSON that is safe inside `<script type="application/json">` (no `</script>`, no line separators). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** A percentage for inline styles, clamped to 0–100 with two decimals. */
export function percent(part: number, whole: number): string {
  if (!(whole > 0)) return "0%";
  return `${Math.min(100, Math.max(0, (part / whole) * 100)).toFixed(2)}%`;
}

export function formatNumber(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

const BASE_STYLE = `
:root{--ink:#1d2330;--muted:#5d6678;--line:#dfe3ea;--bg:#f7f8fa;--card:#fff;--accent:#2f6fdf;--accent2:#18a57a;--warn:#d98a00;--bad:#c93b3b;--reserve:#f1d9a8}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg)}
header,main{max-width:1200px;margin:0 auto;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
.meta{color:var(--muted)}.answer{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin-top:10px;white-space:pre-wrap}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin-bottom:16px}
h2{font-size:15px;margin:0 0 10px}h3{font-size:14px;margin:8px 0 4px}
button{font:inherit;color:inherit;cursor:pointer}.legend{color:var(--muted);font-size:12px;margin-top:6px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 10px;vertical-align:-1px}
`;

/** A complete page: one file, inline styles and script, nothing fetched. */
export function htmlDocument({
  title,
  style,
  body,
  data,
  script,
}: {
  title: string;
  style: string;
  body: string;
  data: unknown;
  /** The page's interactions, if any; the data is embedded either way (for tools that read the file). */
  script?: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${BASE_STYLE}${style}</style>
</head>
<body>
${body}
<script type="application/json" id="page-data">${scriptJson(data)}</script>
${script ? `<script>${script}</script>` : ""}
</body>
</html>
`;
}
