// The eval page's one interaction: a click (or Enter) on a mode's point or table row shows that mode's
// per-question drill-down and marks the point.
export const EVAL_PAGE_SCRIPT = `(() => {
  const drill = document.getElementById("drill");
  const show = (mode) => {
    drill.setAttribute("data-mode", mode);
    for (const block of drill.querySelectorAll(".mode-drill")) block.hidden = block.getAttribute("data-mode") !== mode;
    for (const point of document.querySelectorAll("#chart .point"))
      point.classList.toggle("selected", point.getAttribute("data-mode") === mode);
  };
  for (const target of document.querySelectorAll("#chart .point, #modes .mode-row")) {
    target.addEventListener("click", () => show(target.getAttribute("data-mode")));
    target.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") show(target.getAttribute("data-mode"));
    });
  }
  const first = drill.getAttribute("data-mode");
  if (first) show(first);
})();`;
