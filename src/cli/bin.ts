#!/usr/bin/env node
import { loadCli } from "./load-cli.js";

const argv = process.argv.slice(2);
const { cli, save } = await loadCli(argv, process.env);
process.exitCode = await cli.main(argv);
save();
