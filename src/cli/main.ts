#!/usr/bin/env node
import 'reflect-metadata';
import { runCli } from './runCli.js';

const code = await runCli(process.argv.slice(2));
// `serve` keeps running on its own; every other command ends here.
if (process.argv[2] !== 'serve') process.exit(code);
