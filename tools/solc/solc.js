#!/usr/bin/env node
// A native-solc-compatible command line over solc-js (the npm package `solc`).
//
// Native solc binaries cannot be downloaded on our machines, but solc-js (the same compiler built
// to WebAssembly) comes from npm. This wrapper answers the subset of the native CLI that
// py-solc-x / brownie, forge, slither (crytic-compile) and solcx.compile_files use:
//
//   solc --version
//   solc --standard-json [--base-path P] [--include-path P]... [--allow-paths ...] [input.json]
//   solc --combined-json abi,bin,... [options] [prefix=target]... file.sol...
//
// Output is written with process.exitCode (never process.exit()) so that large outputs on a pipe
// are flushed completely.
'use strict';

const fs = require('fs');
const path = require('path');

const COMBINED_KEYS = {
  // combined-json key -> [kind, standard-json output selection, path into the contract output]
  abi: ['contract', 'abi', ['abi']],
  bin: ['contract', 'evm.bytecode.object', ['evm', 'bytecode', 'object']],
  'bin-runtime': ['contract', 'evm.deployedBytecode.object', ['evm', 'deployedBytecode', 'object']],
  srcmap: ['contract', 'evm.bytecode.sourceMap', ['evm', 'bytecode', 'sourceMap']],
  'srcmap-runtime': ['contract', 'evm.deployedBytecode.sourceMap', ['evm', 'deployedBytecode', 'sourceMap']],
  opcodes: ['contract', 'evm.bytecode.opcodes', ['evm', 'bytecode', 'opcodes']],
  asm: ['contract', 'evm.legacyAssembly', ['evm', 'legacyAssembly']],
  hashes: ['contract', 'evm.methodIdentifiers', ['evm', 'methodIdentifiers']],
  metadata: ['contract', 'metadata', ['metadata']],
  userdoc: ['contract', 'userdoc', ['userdoc']],
  devdoc: ['contract', 'devdoc', ['devdoc']],
  'storage-layout': ['contract', 'storageLayout', ['storageLayout']],
  'transient-storage-layout': ['contract', 'transientStorageLayout', ['transientStorageLayout']],
  'generated-sources': ['contract', 'evm.bytecode.generatedSources', ['evm', 'bytecode', 'generatedSources']],
  'generated-sources-runtime': ['contract', 'evm.deployedBytecode.generatedSources', ['evm', 'deployedBytecode', 'generatedSources']],
  'function-debug': ['contract', 'evm.bytecode.functionDebugData', ['evm', 'bytecode', 'functionDebugData']],
  'function-debug-runtime': ['contract', 'evm.deployedBytecode.functionDebugData', ['evm', 'deployedBytecode', 'functionDebugData']],
  ir: ['contract', 'ir', ['ir']],
  'ir-optimized': ['contract', 'irOptimized', ['irOptimized']],
  ast: ['source', 'ast', null],
  // Accepted for compatibility with older callers (crytic-compile); it changes nothing.
  'compact-format': ['ignore', null, null],
};

// What --help advertises (py-solc-x requests all of these by default); ir, ir-optimized and
// compact-format are accepted but left out to keep default compiles fast.
const HELP_OUTPUTS = Object.keys(COMBINED_KEYS)
  .filter((k) => !['ir', 'ir-optimized', 'compact-format'].includes(k)).sort().join(',');

class UsageError extends Error {}

function loadSolc() {
  // Emscripten installs an uncaughtException handler that swallows our errors; drop it.
  const before = process.listeners('uncaughtException');
  const solc = require('solc');
  process.removeAllListeners('uncaughtException');
  for (const listener of before) process.on('uncaughtException', listener);
  return solc;
}

function nativeVersion(solc) {
  // "0.8.30+commit.73712a01.Emscripten.clang" -> "0.8.30+commit.73712a01.Linux.g++"
  const m = /^(\d+\.\d+\.\d+(?:-[\w.]+)?\+commit\.[0-9a-f]+)/.exec(solc.version());
  return (m ? m[1] : solc.version()) + '.Linux.g++';
}

function parseArgs(argv) {
  const opts = {
    mode: null, basePath: '', includePaths: [], files: [], remappings: [], combined: null,
    optimize: false, optimizeRuns: null, evmVersion: null, viaIR: false, metadataHash: null,
    noCborMetadata: false, pretty: false, jsonIndent: null, stopAfter: null,
  };
  const needsValue = new Set([
    '--base-path', '--include-path', '--allow-paths', '--combined-json', '--optimize-runs',
    '--evm-version', '--metadata-hash', '--json-indent', '--stop-after', '--output-dir', '-o',
  ]);
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    if (eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    } else if (needsValue.has(arg)) {
      if (i + 1 >= argv.length) throw new UsageError(`option ${arg} needs a value`);
      value = argv[++i];
    }
    switch (arg) {
      case '--version': opts.mode = opts.mode || 'version'; break;
      case '--help': case '-h': opts.mode = 'help'; break;
      case '--standard-json': opts.mode = 'standard-json'; break;
      case '--combined-json': opts.mode = 'combined-json'; opts.combined = value; break;
      case '--base-path': opts.basePath = value; break;
      case '--include-path': opts.includePaths.push(value); break;
      case '--allow-paths': break; // solc-js reads through our callback; nothing to allow
      case '--optimize': opts.optimize = true; break;
      case '--optimize-runs': opts.optimizeRuns = parseInt(value, 10); break;
      case '--evm-version': opts.evmVersion = value; break;
      case '--via-ir': case '--experimental-via-ir': opts.viaIR = true; break;
      case '--metadata-hash': opts.metadataHash = value; break;
      case '--no-cbor-metadata': opts.noCborMetadata = true; break;
      case '--pretty-json': opts.pretty = true; break;
      case '--json-indent': opts.jsonIndent = parseInt(value, 10); break;
      case '--stop-after': opts.stopAfter = value; break;
      case '--no-color': case '--color': case '--error-codes': case '--overwrite': break;
      case '--ignore-missing': break;
      case '--output-dir': case '-o':
        throw new UsageError('--output-dir is not supported by this wrapper; read stdout instead');
      default:
        if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unrecognised option '${argv[i]}'`);
        if (arg.includes('=')) opts.remappings.push(arg);
        else opts.files.push(arg);
    }
  }
  return opts;
}

// Reads a source unit by name the way native solc's file reader does: relative to the base path
// (the working dir when none is given), then each include path; an absolute name is also tried
// as it is.
function makeReader(opts) {
  const prefixes = [opts.basePath ? path.resolve(opts.basePath) : process.cwd()]
    .concat(opts.includePaths.map((p) => path.resolve(p)));
  return function findImport(name) {
    const candidates = [];
    if (path.isAbsolute(name)) candidates.push(name);
    for (const prefix of prefixes) candidates.push(path.join(prefix, name));
    if (!path.isAbsolute(name)) candidates.push(path.resolve(name));
    for (const candidate of candidates) {
      try {
        if (fs.statSync(candidate).isFile()) return { contents: fs.readFileSync(candidate, 'utf8') };
      } catch (e) {
        if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR') return { error: `Error reading ${candidate}: ${e.message}` };
      }
    }
    return { error: `File not found. Searched the following locations: ${prefixes.map((p) => `"${p}"`).join(', ')}.` };
  };
}

// The CLI's source unit name for a file argument: relative to the base path (or the working dir)
// or an include path when inside one, otherwise absolute.
function sourceUnitName(file, opts) {
  const abs = path.resolve(file);
  const prefixes = [opts.basePath ? path.resolve(opts.basePath) : process.cwd()]
    .concat(opts.includePaths.map((p) => path.resolve(p)));
  for (const prefix of prefixes) {
    const rel = path.relative(prefix, abs);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return abs;
}

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on('data', (c) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

function writeOut(text) {
  // Never follow this with process.exit(): output beyond 64 KiB on a pipe would be cut.
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

function standardJsonError(message) {
  return JSON.stringify({
    errors: [{
      component: 'general', formattedMessage: message, message, severity: 'error', type: 'JSONError',
    }],
  });
}

async function runStandardJson(solc, opts) {
  let inputText;
  if (opts.files.length > 1) throw new UsageError('--standard-json takes at most one input file');
  if (opts.files.length === 1 && opts.files[0] !== '-') inputText = fs.readFileSync(opts.files[0], 'utf8');
  else inputText = await readStdin();
  try {
    JSON.parse(inputText);
  } catch (e) {
    writeOut(standardJsonError(`Error parsing input JSON: ${e.message}`));
    return 0;
  }
  writeOut(solc.compile(inputText, { import: makeReader(opts) }));
  return 0;
}

function dig(obj, keys) {
  let cur = obj;
  for (const k of keys) {
    if (cur === undefined || cur === null) return undefined;
    cur = cur[k];
  }
  return cur;
}

async function runCombinedJson(solc, opts) {
  const requested = opts.combined.split(',').map((s) => s.trim()).filter(Boolean);
  for (const key of requested) {
    if (!(key in COMBINED_KEYS)) throw new UsageError(`Invalid option to --combined-json: ${key}`);
  }
  if (opts.files.length === 0) throw new UsageError('No input files given.');
  const contractSel = requested.filter((k) => COMBINED_KEYS[k][0] === 'contract').map((k) => COMBINED_KEYS[k][1]);
  const wantAst = requested.includes('ast');

  const sources = {};
  const order = [];
  for (const file of opts.files) {
    let content;
    if (file === '-') {
      content = await readStdin();
    } else {
      try {
        content = fs.readFileSync(file, 'utf8');
      } catch (e) {
        process.stderr.write(`Error: "${file}" is not found.\n`);
        return 1;
      }
    }
    const name = file === '-' ? '<stdin>' : sourceUnitName(file, opts);
    sources[name] = { content };
    order.push(name);
  }
  const settings = {
    remappings: opts.remappings,
    optimizer: { enabled: opts.optimize, runs: opts.optimizeRuns === null ? 200 : opts.optimizeRuns },
    outputSelection: { '*': { '*': contractSel, '': wantAst ? ['ast'] : [] } },
  };
  if (opts.evmVersion) settings.evmVersion = opts.evmVersion;
  if (opts.viaIR) settings.viaIR = true;
  if (opts.metadataHash || opts.noCborMetadata) {
    settings.metadata = {};
    if (opts.metadataHash) settings.metadata.bytecodeHash = opts.metadataHash;
    if (opts.noCborMetadata) settings.metadata.appendCBOR = false;
  }
  if (opts.stopAfter) settings.stopAfter = opts.stopAfter;
  const input = { language: 'Solidity', sources, settings };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: makeReader(opts) }));

  let failed = false;
  for (const err of output.errors || []) {
    process.stderr.write((err.formattedMessage || err.message) + '\n');
    if (err.severity === 'error') failed = true;
  }
  if (failed) return 1;

  const result = { contracts: {} };
  for (const [file, contracts] of Object.entries(output.contracts || {})) {
    for (const [name, data] of Object.entries(contracts)) {
      const entry = {};
      for (const key of requested) {
        const [kind, , keys] = COMBINED_KEYS[key];
        if (kind !== 'contract') continue;
        const value = dig(data, keys);
        entry[key] = value === undefined ? '' : value;
      }
      result.contracts[`${file}:${name}`] = entry;
    }
  }
  const ids = Object.entries(output.sources || {}).sort((a, b) => a[1].id - b[1].id);
  result.sourceList = ids.map(([name]) => name);
  result.sources = {};
  for (const [name, src] of ids) {
    result.sources[name] = wantAst ? { AST: src.ast, id: src.id } : { id: src.id };
  }
  result.version = nativeVersion(solc);
  const indent = opts.jsonIndent !== null ? opts.jsonIndent : (opts.pretty ? 2 : 0);
  writeOut(JSON.stringify(result, null, indent));
  return 0;
}

const HELP = `solc, the solidity compiler commandline interface
(a wrapper over solc-js: only the options below are supported)

Usage: solc --version
       solc --standard-json [--base-path P] [--include-path P]... [input.json]
       solc --combined-json OUTPUTS [options] [prefix=target]... file.sol...

Output Formats:
  --combined-json ${HELP_OUTPUTS}
                       Output a single json document containing the specified information.

Options:
  --base-path P, --include-path P (repeatable), --allow-paths P (ignored)
  --optimize, --optimize-runs N, --evm-version V, --via-ir, --metadata-hash H,
  --no-cbor-metadata, --pretty-json, --json-indent N, --stop-after parsing
`;

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`Error: ${e.message}\n`);
    return 1;
  }
  if (opts.mode === 'help' || opts.mode === null) {
    (opts.mode === 'help' ? process.stdout : process.stderr).write(HELP);
    return opts.mode === 'help' ? 0 : 1;
  }
  const solc = loadSolc();
  try {
    if (opts.mode === 'version') {
      writeOut(`solc, the solidity compiler commandline interface\nVersion: ${nativeVersion(solc)}`);
      return 0;
    }
    if (opts.mode === 'standard-json') return await runStandardJson(solc, opts);
    return await runCombinedJson(solc, opts);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`Error: ${e.message}\n`);
    return 1;
  }
}

main().then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`${err && err.stack ? err.stack : err}\n`); process.exitCode = 1; },
);
