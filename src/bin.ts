#!/usr/bin/env node
// Entry: nothing heavy here; main lazy-loads the one command it runs.
import { main } from './cli/main.js'

await main(process.argv.slice(2))
