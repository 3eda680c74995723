#!/usr/bin/env bash
# Packs ragsynth as npm would publish it, installs the tarball into an empty project, and uses it the way a
# user does: every entry point (the root before @langchain/core is installed, proving it optional), a synthesis
# with the test fake, and the `ragsynth` bin offline.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root" && npm pack --silent --pack-destination "$work" >/dev/null)
cd "$work"
npm init -y >/dev/null
npm install --silent --no-audit --no-fund ./ragsynth-*.tgz zod@4 >/dev/null
node --input-type=module -e '
const ragsynth = await import("ragsynth");
const { MockLLM } = await import("ragsynth/testing");
const { createSynthesizer } = await import("ragsynth/extend");
if (typeof createSynthesizer !== "function") throw new Error("ragsynth/extend lacks createSynthesizer");
if ("createSynthesizer" in ragsynth) throw new Error("the root export should not hold extension internals");
const response = await ragsynth
  .getResponseSynthesizer({ llm: new MockLLM({ response: "ok" }) })
  .synthesize({ query: "q", nodes: [{ node: new ragsynth.TextNode({ text: "hello" }) }] });
if (response.toString() !== "ok" || response.usage.llmCalls !== 1) throw new Error("packed synthesis failed");
'
# The LangChain subpath with its optional peer installed, as a LangChain user has it.
npm install --silent --no-audit --no-fund @langchain/core@1 >/dev/null
node --input-type=module -e '
const { toLangChainRunnable } = await import("ragsynth/langchain");
const { getResponseSynthesizer, TextNode } = await import("ragsynth");
const { MockLLM } = await import("ragsynth/testing");
const runnable = toLangChainRunnable(getResponseSynthesizer({ llm: new MockLLM({ response: "ok" }) }));
const answer = await runnable.invoke({ query: "q", nodes: [{ node: new TextNode({ text: "hello" }) }] });
if (answer !== "ok") throw new Error(`packed ragsynth/langchain answered ${answer}`);
'
mkdir docs && echo "Paris is the capital of France." > docs/a.txt
answer="$(npx --no-install ragsynth ask docs -q "What is the capital of France?" --report page.html 2>/dev/null)"
grep -q "ragsynth trace" page.html || { echo "smoke-pack: ask --report wrote no trace page" >&2; exit 1; }
# The bin is bundled on its own: an ask loads three of ragsynth's files (the bin, the chunk it shares with the
# commands, the commands), not the library's chunks. A resolve hook logs every module loaded; counts only.
cat > probe.mjs <<'PROBE'
import { register } from "node:module";
const log = JSON.stringify(`${process.cwd()}/loaded.log`);
const hooks = `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${log}, result.url + "\\n");
  return result;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
PROBE
NODE_OPTIONS="--import $work/probe.mjs" npx --no-install ragsynth ask docs -q "What is the capital of France?" >/dev/null 2>&1
loaded="$(sort -u loaded.log | grep -c "/node_modules/ragsynth/dist/" || true)"
if [ "$loaded" -ne 3 ]; then
  echo "smoke-pack: ask loaded $loaded of ragsynth's files, expected 3 (bin, shared chunk, commands):" >&2
  sort -u loaded.log | grep "/node_modules/ragsynth/dist/" >&2 || true
  exit 1
fi
case "$answer" in
  *"Paris is the capital of France."*) echo "smoke-pack: the packed package imports, synthesizes, answers from its bin and writes a trace page" ;;
  *) echo "smoke-pack: the bin's answer was wrong: $answer" >&2; exit 1 ;;
esac
