#!/usr/bin/env node
// svc: entry point of the built binary (bin "svc").
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2));
