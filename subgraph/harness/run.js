#!/usr/bin/env node
'use strict';
// node subgraph/harness/run.js [--build DIR] [--schema FILE] < scenario.json > result.json
//
// scenario: {"events": [{"dataSource", "handler", "address", "logIndex", "block": {"number",
//   "timestamp"}, "transaction": {"hash", "from", "to"}, "params": [{"name", "type", "value",
//   "components"?}]}, ...]} with uintN/intN values as decimal strings and bytes as 0x hex.
// result: {"entities": {Type: {id: {field: value}}}, "logs": [...], "handled": n, "error": null |
//   {"event", "handler", "message"}} — a failing handler stops the run, as it stops a graph node.

const fs = require('fs');
const path = require('path');
const { Harness } = require('./harness');

function main(argv) {
  const root = path.resolve(__dirname, '..');
  let buildDir = path.join(root, 'build');
  let schema = path.join(root, 'schema.graphql');
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--build') buildDir = argv[++i];
    else if (argv[i] === '--schema') schema = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  const scenario = JSON.parse(fs.readFileSync(0, 'utf8'));
  const harness = new Harness(buildDir, schema);
  const outcome = harness.run(scenario.events || []);
  const result = { entities: harness.store.dump(), logs: harness.logs, ...outcome };
  process.stdout.write(JSON.stringify(result, null, 1) + '\n');
}

try {
  main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`harness: ${err.stack || err}\n`);
  process.exitCode = 1;
}
