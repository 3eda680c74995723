import { CITED_ANSWER_STYLE, renderCitedAnswer } from "./cited-answer.js";
import { escapeHtml, formatMs, formatNumber, htmlDocument, percent } from "./html.js";
import type { PageCall, TracePageData } from "./trace-page-data.js";
import { TRACE_PAGE_SCRIPT } from "./trace-page-script.js";

const STYLE = `
.timeline{position:relative;border-left:1px solid var(--line);border-bottom:1px solid var(--line);margin:4px 0 22px}
.lane{position:relative;height:30px;border-top:1px dashed #eef0f4}
.call{position:absolute;top:3px;height:24px;min-width:6px;border:0;border-radius:4px;background:var(--accent);color:#fff;font-size:11px;
  padding:0 5px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;text-align:left}
.call.retried{background:repeating-linear-gradient(45deg,var(--warn),var(--warn) 6px,#e9a52a 6px,#e9a52a 12px)}
.call.failed{background:var(--bad)}.call.selected,.card.selected{outline:3px solid #111;outline-offset:1px}
.call.reached,.card.reached{box-shadow:0 0 0 3px var(--accent2)}
.wait{position:absolute;top:0;bottom:0;background:rgba(217,138,0,.18);border-left:2px solid var(--warn);font-size:10px;color:#8a5a00;padding-left:2px}
.axis{position:relative;height:16px;color:var(--muted);font-size:11px}.axis span{position:absolute;transform:translateX(-50%)}
.rounds{display:flex;gap:14px;overflow-x:auto;padding-bottom:4px}.rounds.fan .round{flex:1}
.round{min-width:190px}.round h3{color:var(--muted);font-weight:600}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:0 8px}
.card{display:block;width:100%;text-align:left;background:#fbfcfe;border:1px solid var(--line);border-radius:6px;padding:6px 8px;margin-bottom:8px}
.card .label{font-weight:600}.card .nums{color:var(--muted);font-size:12px}
.arrow{color:var(--muted);align-self:center;font-size:18px}
.fill{position:relative;height:10px;background:#eef1f6;border-radius:3px;margin:5px 0 3px;overflow:hidden}
.fill .prompt{position:absolute;left:0;top:0;bottom:0;background:var(--accent)}
.fill .reserve{position:absolute;top:0;bottom:0;background:var(--reserve)}
.split{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px}
.source{display:block;width:100%;text-align:left;background:#fbfcfe;border:1px solid var(--line);border-radius:6px;padding:6px 8px;margin-bottom:6px}
.source .name{font-weight:600}.source .where{font-size:12px}a.open{display:block;font-size:12px;margin:-4px 0 8px 8px}.source .snippet{color:var(--muted);font-size:12px;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.source.reached{border-color:var(--accent2);box-shadow:0 0 0 2px var(--accent2)}.source.selected{outline:3px solid #111}
#details pre{white-space:pre-wrap;background:#f4f6f9;border-radius:6px;padding:8px;max-height:260px;overflow:auto;font-size:12px}
#details ul{padding-left:18px;margin:4px 0}.hint{color:var(--muted)}
`;

function fillBar(call: PageCall, data: TracePageData): string {
  const reserveStart = data.contextWindow - data.numOutput;
  return (
    `<div class="fill" title="${formatNumber(call.promptTokens)} prompt tokens of ${formatNumber(data.contextWindow)}; ` +
    `${formatNumber(data.numOutput)} reserved for the answer">` +
    `<span class="reserve" style="left:${percent(reserveStart, data.contextWindow)};width:${percent(data.numOutput, data.contextWindow)}"></span>` +
    `<span class="prompt" style="width:${percent(call.promptTokens, data.contextWindow)}"></span></div>`
  );
}

function card(call: PageCall, data: TracePageData): string {
  const flags = [
    call.retries > 0 ? `↻ ${call.retries} ${call.retries === 1 ? "retry" : "retries"}` : "",
    call.querySatisfied === false ? "not satisfied" : "",
    call.error ? "failed" : "",
  ].filter(Boolean);
  return (
    `<button class="card" data-call="${call.id}"><div class="label">${escapeHtml(call.label)}</div>${fillBar(call, data)}` +
    `<div class="nums">${formatNumber(call.promptTokens)} / ${formatNumber(data.contextWindow)} prompt · ` +
    `${formatNumber(call.completionTokens)} out · ${call.sources.length} src${flags.length ? ` · ${escapeHtml(flags.join(" · "))}` : ""}</div></button>`
  );
}

/** Tree: one column per level. Chain: one column per step with arrows. Fan-out: one column of parallel calls. */
function structure(data: TracePageData): string {
  const rounds = new Map<number, PageCall[]>();
  const byIndex = (call: PageCall) => ("index" in call.step ? call.step.index : 0);
  const inOrder = [...data.calls].sort((a, b) => a.round - b.round || byIndex(a) - byIndex(b));
  for (const call of inOrder) rounds.set(call.round, [...(rounds.get(call.round) ?? []), call]);
  const ordered = [...rounds.entries()].sort(([a], [b]) => a - b);
  const isTree = data.calls.some((call) => call.step.kind === "tree");
  const isFan = !isTree && ordered.length === 1 && data.calls.length > 1;
  const title = isTree ? "Tree, level by level" : isFan ? "Fan-out: one call per chunk" : "Chain of steps";
  const columns = ordered.map(([round, calls]) => {
    const heading = isTree
      ? `Level ${round}${calls.length === 1 && round > 0 ? " (root)" : ""}`
      : isFan
        ? "Calls"
        : `Step ${round}`;
    // A level with many calls takes more of the row and wraps its cards into a grid.
    const grow = isTree || isFan ? calls.length : 1;
    return (
      `<div class="round" data-round="${round}" style="flex:${grow} 1 0"><h3>${escapeHtml(heading)}</h3>` +
      `<div class="cards">${calls.map((call) => card(call, data)).join("")}</div></div>`
    );
  });
  const joined = isTree || isFan ? columns.join("") : columns.join('<div class="arrow">→</div>');
  return (
    `<section id="structure"><h2>${title}</h2><div class="rounds${isFan ? " fan" : ""}">${joined || '<p class="hint">No model calls.</p>'}</div>` +
    `<div class="legend">Bar: the call's prompt tokens<span class="swatch" style="background:var(--accent)"></span>against the window;` +
    `<span class="swatch" style="background:var(--reserve)"></span>numOutput reserved for the answer.</div></section>`
  );
}

function timeline(data: TracePageData): string {
  const total = Math.max(1, data.totalMs, ...data.calls.map((call) => call.endMs));
  const lanes = Math.max(1, ...data.calls.map((call) => call.lane + 1));
  const rows = Array.from({ length: lanes }, (_, lane) => {
    const bars = data.calls
      .filter((call) => call.lane === lane)
      .map((call) => {
        const classes = ["call", call.retries > 0 ? "retried" : "", call.error ? "failed" : ""]
          .filter(Boolean)
          .join(" ");
        const tip = `${call.label}: ${formatMs(call.startMs)} → ${formatMs(call.endMs)}, ${formatNumber(call.promptTokens)} prompt tokens${call.retries ? `, ${call.retries} retried` : ""}`;
        return `<button class="${classes}" data-call="${call.id}" title="${escapeHtml(tip)}" style="left:${percent(call.startMs, total)};width:${percent(call.endMs - call.startMs, total)}">${escapeHtml(call.label)}</button>`;
      });
    return `<div class="lane">${bars.join("")}</div>`;
  });
  const waits = data.waits.map(
    (wait) =>
      `<div class="wait" title="${escapeHtml(`waited ${formatMs(wait.delayMs)} before retrying: ${wait.reason}`)}" style="left:${percent(wait.atMs, total)};width:${percent(wait.delayMs, total)}">${escapeHtml(wait.reason)}</div>`,
  );
  const ticks = [0, 0.25, 0.5, 0.75, 1].map(
    (at) => `<span style="left:${at * 100}%">${formatMs(total * at)}</span>`,
  );
  return (
    `<section id="timeline"><h2>Timeline: ${data.calls.length} model calls, at most ${lanes} at once</h2>` +
    `<div class="timeline">${rows.join("")}${waits.join("")}</div><div class="axis">${ticks.join("")}</div>` +
    `<div class="legend"><span class="swatch" style="background:var(--accent)"></span>call` +
    `<span class="swatch" style="background:var(--warn)"></span>retried call<span class="swatch" style="background:rgba(217,138,0,.3)"></span>wait before a retry (429 Retry-After, backoff)` +
    `<span class="swatch" style="background:var(--bad)"></span>failed</div></section>`
  );
}

function sources(data: TracePageData): string {
  const items = data.sources.map(
    (source, index) =>
      `<button class="source" id="source-${index + 1}" data-source="${index}"><div class="name">[${index + 1}] ${escapeHtml(source.name)}` +
      `${source.score === undefined ? "" : ` · ${source.score.toFixed(3)}`} · ${source.calls.length} ${source.calls.length === 1 ? "call" : "calls"}</div>` +
      (source.location ? `<div class="where">${escapeHtml(source.location)}</div>` : "") +
      `<div class="snippet">${escapeHtml(source.text)}</div></button>` +
      // A link cannot sit inside a button: the file's link follows it.
      (source.href
        ? `<a class="open" href="${escapeHtml(source.href)}">open ${escapeHtml(source.location ?? source.name)}</a>`
        : ""),
  );
  return `<section id="sources"><h2>Sources (${data.sources.length})</h2>${items.join("") || '<p class="hint">No sources.</p>'}</section>`;
}

/** The trace page of one `ask`: a self-contained HTML document (inline styles and script, no network). */
export function renderTracePage(data: TracePageData): string {
  const body =
    `<header><h1>ragsynth trace · ${escapeHtml(data.mode)}</h1>` +
    `<div class="meta">${escapeHtml(data.model)} · window ${formatNumber(data.contextWindow)} · numOutput ${formatNumber(data.numOutput)} · ` +
    `${data.usage.llmCalls} calls · ${formatNumber(data.usage.promptTokens)} prompt + ${formatNumber(data.usage.completionTokens)} completion tokens · ` +
    `${data.usage.retries} retries · synthesis ${formatMs(data.totalMs)}</div>` +
    `<div class="answer"><strong>Q:</strong> ${escapeHtml(data.query)}\n<strong>A:</strong> ${data.answerParts ? renderCitedAnswer(data.answerParts) : escapeHtml(data.answer)}</div></header>` +
    `<main>${timeline(data)}${structure(data)}<div class="split">${sources(data)}` +
    `<section id="details" aria-live="polite"><h2>Details</h2><p class="hint">Click a call to see its context and sources; click a source to see the calls it reached.</p></section></div></main>`;
  return htmlDocument({
    title: `ragsynth trace: ${data.query}`,
    style: STYLE + CITED_ANSWER_STYLE,
    body,
    data,
    script: TRACE_PAGE_SCRIPT,
  });
}
