// Writes the `ragsynth plan` table in README.md from the built CLI's own output (run `npm run build` first), so the
// README shows what the command prints. test/readme-plan.test.ts fails when they differ.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

export const PLAN_ARGS = [
  "plan",
  "examples/docs",
  "-q",
  "What is the default response mode?",
  "--context-window",
  "600",
  "--num-output",
  "64",
  "--price-in",
  "0.15",
  "--price-out",
  "0.6",
];
const COMMAND_LINE = `$ ragsynth plan examples/docs -q "What is the default response mode?" --context-window 600 --num-output 64 --price-in 0.15 --price-out 0.6`;

/** The mode table of `ragsynth plan`'s output: from the `mode` header to the last mode's line. */
export function planTable(output) {
  const lines = output.split("\n");
  const start = lines.findIndex((line) => line.startsWith("mode "));
  const end = lines.findIndex((line) => line.startsWith("context_only "));
  if (start < 0 || end < start) throw new Error(`readme-plan: no mode table in the plan output:\n${output}`);
  return lines.slice(start, end + 1).join("\n");
}

/** README with its plan block replaced by `table`. */
export function withPlanTable(readme, table) {
  const start = readme.indexOf(`${COMMAND_LINE}\n`);
  if (start < 0) throw new Error("readme-plan: README.md has no plan example block");
  const from = start + COMMAND_LINE.length + 1;
  const end = readme.indexOf("\n```", from);
  return `${readme.slice(0, from)}${table}${readme.slice(end)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const output = execFileSync(process.execPath, ["dist/cli/bin.js", ...PLAN_ARGS], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", RAGSYNTH_LLM: "", RAGSYNTH_EMBED: "" },
  });
  const readme = readFileSync("README.md", "utf8");
  const next = withPlanTable(readme, planTable(output));
  if (next !== readme) writeFileSync("README.md", next);
  console.log(
    next === readme
      ? "readme-plan: README.md already shows the plan output"
      : "readme-plan: README.md updated",
  );
}
