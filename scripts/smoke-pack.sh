#!/usr/bin/env bash
# Packs ragsynth as npm would publish it, installs the tarball into an empty project, and uses it the way a
# user does: both entry points, a synthesis with the test fake, and the `ragsynth` bin offline.
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
const response = await ragsynth
  .getResponseSynthesizer({ llm: new MockLLM({ response: "ok" }) })
  .synthesize({ query: "q", nodes: [{ node: new ragsynth.TextNode({ text: "hello" }) }] });
if (response.toString() !== "ok" || response.usage.llmCalls !== 1) throw new Error("packed synthesis failed");
'
mkdir docs && echo "Paris is the capital of France." > docs/a.txt
answer="$(npx --no-install ragsynth ask docs -q "What is the capital of France?" 2>/dev/null)"
case "$answer" in
  *"Paris is the capital of France."*) echo "smoke-pack: the packed package imports, synthesizes and answers from its bin" ;;
  *) echo "smoke-pack: the bin's answer was wrong: $answer" >&2; exit 1 ;;
esac
