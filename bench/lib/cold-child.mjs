// One cold sample (see cold.mjs): `node cold-child.mjs <module URL> <task> <JSON args>`.
const [moduleUrl, task, args] = process.argv.slice(2);
const module = await import(moduleUrl);
const run = module.coldTasks?.[task];
if (typeof run !== "function") throw new Error(`${moduleUrl} has no cold task ${task}`);
const result = await run(JSON.parse(args));
console.log(JSON.stringify(result));
// Timers of fake servers or pools must not keep a sample alive.
process.exit(0);
