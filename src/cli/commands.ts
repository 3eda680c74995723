// The commands, loaded together by runCli on first use (never for --help, --version or a usage error). One
// module rather than one per command: the bin is bundled, and Node 20 pays for every ES module file it loads,
// so the ask command from one bundled file starts faster than from the ~17 chunks it shares with the rest.
export { runAsk } from "./ask-command.js";
export { runBatch } from "./batch-command.js";
export { runEval } from "./eval-command.js";
export { runIndex } from "./index-command.js";
export { runPlan } from "./plan-command.js";
export { runWorker } from "./worker-command.js";
