/**
 * The trace page's only script: click a call to list its sources, the answers it read, its context and
 * answer; click a source to mark the calls it reached. Text goes in with `textContent`, never as HTML.
 */
export const TRACE_PAGE_SCRIPT = `(() => {
const data = JSON.parse(document.getElementById("page-data").textContent);
const details = document.getElementById("details");
const el = (tag, text, className) => { const node = document.createElement(tag); if (text !== undefined) node.textContent = text; if (className) node.className = className; return node; };
const mark = (selector, cls) => document.querySelectorAll(selector).forEach((node) => node.classList.add(cls));
const clear = () => document.querySelectorAll(".selected,.reached").forEach((node) => node.classList.remove("selected", "reached"));
const by = (counter) => counter === "server" ? "counted by the server" : "counted by ragsynth; the server reported none";
const list = (items) => { const ul = el("ul"); for (const item of items) ul.append(el("li", item)); return ul; };
function showCall(id) {
  const call = data.calls[id]; clear();
  mark('[data-call="' + id + '"]', "selected");
  for (const index of call.sources) mark('[data-source="' + index + '"]', "reached");
  for (const input of call.inputs) mark('[data-call="' + input + '"]', "reached");
  const parts = [el("h2", "Call: " + call.label),
    el("p", call.promptTokens + " prompt tokens (" + by(call.promptCountedBy) + ") of a " + data.contextWindow + "-token window (" + data.numOutput + " reserved for the answer), " + call.completionTokens + " completion tokens (" + by(call.completionCountedBy) + "), " + Math.round(call.endMs - call.startMs) + " ms" + (call.retries ? ", " + call.retries + " retried" : "") + (call.error ? ", failed: " + call.error : ""), "hint")];
  if (call.promptCountedBy === "server" && call.countedPromptTokens !== call.promptTokens) parts.push(el("p", "ragsynth counted " + call.countedPromptTokens + " prompt tokens before sending; the server counted " + call.promptTokens + ".", "hint"));
  if (call.overWindowBy !== undefined) parts.push(el("p", "Over the window: prompt plus the " + data.numOutput + " tokens reserved for the answer exceed " + data.contextWindow + " by " + call.overWindowBy + " tokens.", "over-flag"));
  parts.push(el("h3", "Sources the packer put in this call (" + call.sources.length + ")"));
  parts.push(call.sources.length ? list(call.sources.map((index) => "[" + (index + 1) + "] " + data.sources[index].name)) : el("p", "none: this call reads earlier answers or the query only", "hint"));
  if (call.inputs.length) { parts.push(el("h3", "Answers it read")); parts.push(list(call.inputs.map((input) => data.calls[input].label))); }
  parts.push(el("h3", "Context (" + call.contextTokens + " tokens)"), el("pre", call.context || "(none)"), el("h3", "Answer"), el("pre", call.answer || "(empty)"));
  parts.forEach((part, index) => { if (index === 0) part.id = "details-title"; });
  details.replaceChildren(...parts);
  details.dataset.showing = "call-" + id;
}
function showSource(index) {
  const source = data.sources[index]; clear();
  mark('[data-source="' + index + '"]', "selected");
  for (const id of source.calls) mark('[data-call="' + id + '"]', "reached");
  details.replaceChildren(el("h2", "Source [" + (index + 1) + "] " + source.name),
    el("p", source.location || source.name),
    el("h3", "Reached " + source.calls.length + " calls"),
    source.calls.length ? list(source.calls.map((id) => data.calls[id].label)) : el("p", "none", "hint"),
    el("h3", "Text"), el("pre", source.text));
  details.dataset.showing = "source-" + index;
}
document.addEventListener("click", (event) => {
  const target = event.target.closest("[data-call],[data-source]");
  if (!target) return;
  if (target.dataset.call !== undefined) showCall(Number(target.dataset.call));
  else showSource(Number(target.dataset.source));
});
})();`;
