'use strict';
// Runs the subgraph's compiled mappings (graph build's WASM) outside a graph node: the host
// functions they import are implemented here over an in-memory store, events are built in the
// mapping's memory as graph-node builds them, and handlers are called by their exported names.
// See subgraph/README.md ("Testing the mappings") for what it checks and what it does not.

const fs = require('fs');
const path = require('path');
const { AscMemory, TypeId, EthKind, StoreKind, hexToBytes, bytesToHex, bytesToBigInt } = require('./asc');
const { parseSchema, validateEntity } = require('./schema');

const STORE_KIND_NAMES = ['String', 'Int', 'BigDecimal', 'Boolean', 'Array', 'Null', 'Bytes', 'BigInt', 'Int8', 'Timestamp'];
const LOG_LEVELS = ['critical', 'error', 'warning', 'info', 'debug'];

class HandlerError extends Error {}

/** The store the mappings write to: type -> id -> {field: {kind, value}} (graph-node's values). */
class Store {
  constructor(schema) {
    this.schema = schema;
    this.entities = new Map();
  }

  table(type) {
    if (!this.entities.has(type)) this.entities.set(type, new Map());
    return this.entities.get(type);
  }

  get(type, id) {
    return this.table(type).get(id) || null;
  }

  /** graph-node merges the fields set into the stored entity; a Null value removes a field. */
  set(type, id, data) {
    const existing = this.get(type, id);
    const def = this.schema.entities[type];
    if (existing && def && def.immutable) {
      throw new HandlerError(`${type}[${id}] is immutable and was already stored`);
    }
    const merged = { ...(existing || {}) };
    for (const [field, value] of Object.entries(data)) {
      if (value.kind === 'Null') delete merged[field];
      else merged[field] = value;
    }
    try {
      validateEntity(this.schema, type, id, Object.fromEntries(Object.entries(data).concat(Object.entries(merged))));
    } catch (err) {
      throw new HandlerError(err.message);
    }
    this.table(type).set(id, merged);
  }

  remove(type, id) {
    this.table(type).delete(id);
  }

  /** Plain JSON: BigInt and Int8 as decimal strings, Bytes as 0x hex. */
  dump() {
    const out = {};
    for (const [type, rows] of [...this.entities].sort(([a], [b]) => a.localeCompare(b))) {
      out[type] = {};
      for (const [id, data] of rows) {
        out[type][id] = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, plain(v)]));
      }
    }
    return out;
  }
}

function plain(value) {
  switch (value.kind) {
    case 'Array':
      return value.value.map(plain);
    case 'Null':
      return null;
    default:
      return value.value;
  }
}

/** A compiled mapping instantiated for one trigger (graph-node, too, runs each handler call in a
 *  fresh instance of the data source's module), with the harness's host functions. */
class Mapping {
  constructor(module, name, store, logs) {
    this.name = name;
    this.store = store;
    this.logs = logs;
    const host = this.hostFunctions();
    const imports = {};
    for (const imp of WebAssembly.Module.imports(module)) {
      imports[imp.module] = imports[imp.module] || {};
      imports[imp.module][imp.name] =
        host[imp.name] ||
        (() => {
          throw new HandlerError(`host function ${imp.module}.${imp.name} is not provided by the harness`);
        });
    }
    this.instance = new WebAssembly.Instance(module, imports);
    this.mem = new AscMemory(this.instance.exports);
    this.instance.exports._start(); // compiled with --explicitStart, as graph-node calls it
  }

  // ---------------------------------------------------------------- host functions

  hostFunctions() {
    const h = {};
    const mem = () => this.mem;
    const big = (ptr) => mem().readBigInt(ptr);
    const newBig = (n) => mem().bigInt(n);
    const bigOp = (f) => (x, y) => newBig(f(big(x), big(y)));

    h.abort = (msg, file, line, col) => {
      const m = mem();
      throw new HandlerError(`abort: ${m.readString(msg)} at ${m.readString(file)}:${line}:${col}`);
    };
    h['log.log'] = (level, msg) => {
      const text = mem().readString(msg);
      this.logs.push({ level: LOG_LEVELS[level] || String(level), message: text, mapping: this.name });
      if (level === 0) throw new HandlerError(`critical: ${text}`);
    };
    h['store.get'] = (entity, id) => {
      const m = mem();
      const data = this.store.get(m.readString(entity), m.readString(id));
      return data ? this.writeEntity(data) : 0;
    };
    h['store.get_in_block'] = h['store.get'];
    h['store.set'] = (entity, id, data) => {
      const m = mem();
      this.store.set(m.readString(entity), m.readString(id), this.readEntity(data));
    };
    h['store.remove'] = (entity, id) => {
      const m = mem();
      this.store.remove(m.readString(entity), m.readString(id));
    };

    h['typeConversion.bytesToHex'] = (ptr) => mem().string(bytesToHex(mem().readUint8Array(ptr)));
    h['typeConversion.bytesToString'] = (ptr) =>
      mem().string(Buffer.from(mem().readUint8Array(ptr)).toString('utf8').replace(/\u0000+$/, ''));
    h['typeConversion.bigIntToString'] = (ptr) => mem().string(big(ptr).toString());
    h['typeConversion.bigIntToHex'] = (ptr) => {
      const n = big(ptr);
      return mem().string((n < 0n ? '-0x' + (-n).toString(16) : '0x' + n.toString(16)));
    };
    h['typeConversion.stringToH160'] = (ptr) => mem().uint8Array(hexToBytes(mem().readString(ptr)));

    h['bigInt.plus'] = bigOp((a, b) => a + b);
    h['bigInt.minus'] = bigOp((a, b) => a - b);
    h['bigInt.times'] = bigOp((a, b) => a * b);
    h['bigInt.dividedBy'] = bigOp((a, b) => {
      if (b === 0n) throw new HandlerError('bigInt.dividedBy: division by zero');
      return a / b; // truncates toward zero, as num-bigint
    });
    h['bigInt.mod'] = bigOp((a, b) => {
      if (b === 0n) throw new HandlerError('bigInt.mod: division by zero');
      return a % b;
    });
    h['bigInt.bitOr'] = bigOp((a, b) => a | b);
    h['bigInt.bitAnd'] = bigOp((a, b) => a & b);
    h['bigInt.pow'] = (x, exp) => newBig(big(x) ** BigInt(exp));
    h['bigInt.leftShift'] = (x, bits) => newBig(big(x) << BigInt(bits));
    h['bigInt.rightShift'] = (x, bits) => newBig(big(x) >> BigInt(bits));
    h['bigInt.fromString'] = (ptr) => newBig(BigInt(mem().readString(ptr)));
    h['bigDecimal.toString'] = (ptr) => mem().string(this.readBigDecimal(ptr));
    return h;
  }

  // ---------------------------------------------------------------- store values

  readBigDecimal(ptr) {
    const m = this.mem;
    const digits = m.readBigInt(m.u32(ptr));
    const exp = Number(m.readBigInt(m.u32(ptr + 4)));
    if (exp >= 0) return (digits * 10n ** BigInt(exp)).toString();
    const neg = digits < 0n;
    const s = (neg ? -digits : digits).toString().padStart(-exp + 1, '0');
    const out = `${s.slice(0, exp)}.${s.slice(exp)}`.replace(/\.?0+$/, '');
    return (neg ? '-' : '') + out;
  }

  readStoreValue(ptr) {
    const m = this.mem;
    const { kind, data } = m.readEnumValue(ptr);
    const p = Number(data & 0xffffffffn);
    switch (kind) {
      case StoreKind.STRING:
        return { kind: 'String', value: m.readString(p) };
      case StoreKind.INT:
        return { kind: 'Int', value: Number(BigInt.asIntN(32, data)) };
      case StoreKind.BIGDECIMAL:
        return { kind: 'BigDecimal', value: this.readBigDecimal(p) };
      case StoreKind.BOOL:
        return { kind: 'Boolean', value: data !== 0n };
      case StoreKind.ARRAY:
        return { kind: 'Array', value: m.readArray(p).map((v) => this.readStoreValue(v)) };
      case StoreKind.NULL:
        return { kind: 'Null', value: null };
      case StoreKind.BYTES:
        return { kind: 'Bytes', value: bytesToHex(m.readUint8Array(p)) };
      case StoreKind.BIGINT:
        return { kind: 'BigInt', value: m.readBigInt(p).toString() };
      case StoreKind.INT8:
      case StoreKind.TIMESTAMP:
        return { kind: STORE_KIND_NAMES[kind], value: BigInt.asIntN(64, data).toString() };
      default:
        throw new HandlerError(`unknown store value kind ${kind}`);
    }
  }

  writeStoreValue(value) {
    const m = this.mem;
    const v = (kind, data) => m.enumValue(kind, data, TypeId.StoreValue);
    switch (value.kind) {
      case 'String':
        return v(StoreKind.STRING, m.string(value.value));
      case 'Int':
        return v(StoreKind.INT, BigInt.asUintN(32, BigInt(value.value)));
      case 'BigDecimal': {
        const [whole, frac = ''] = value.value.split('.');
        const digits = m.bigInt(BigInt(whole + frac));
        return v(StoreKind.BIGDECIMAL, m.struct([digits, m.bigInt(-frac.length)], TypeId.BigDecimal));
      }
      case 'Boolean':
        return v(StoreKind.BOOL, value.value ? 1 : 0);
      case 'Array': {
        const items = value.value.map((x) => this.writeStoreValue(x));
        return v(StoreKind.ARRAY, m.array(items, TypeId.ArrayStoreValue));
      }
      case 'Null':
        return v(StoreKind.NULL, 0);
      case 'Bytes':
        return v(StoreKind.BYTES, m.uint8Array(hexToBytes(value.value)));
      case 'BigInt':
        return v(StoreKind.BIGINT, m.bigInt(BigInt(value.value)));
      case 'Int8':
        return v(StoreKind.INT8, BigInt(value.value));
      case 'Timestamp':
        return v(StoreKind.TIMESTAMP, BigInt(value.value));
      default:
        throw new Error(`cannot write store value ${JSON.stringify(value)}`);
    }
  }

  /** Entity = TypedMap<string, Value> { entries: Array<TypedMapEntry { key, value }> }. */
  readEntity(ptr) {
    const m = this.mem;
    const data = {};
    for (const entry of m.readArray(m.u32(ptr))) {
      data[m.readString(m.u32(entry))] = this.readStoreValue(m.u32(entry + 4));
    }
    return data;
  }

  writeEntity(data) {
    const m = this.mem;
    const entries = Object.entries(data).map(([key, value]) =>
      m.struct([m.string(key), this.writeStoreValue(value)], TypeId.TypedMapEntryStringStoreValue),
    );
    return m.struct([m.array(entries, TypeId.ArrayTypedMapEntryStringStoreValue)], TypeId.TypedMapStringStoreValue);
  }

  // ---------------------------------------------------------------- events

  /** ethereum.Value for an ABI type ("uint256", "address", "uint256[3]", "tuple", ...). */
  writeEthValue(abiType, value, components) {
    const m = this.mem;
    const v = (kind, data) => m.enumValue(kind, data, TypeId.EthereumValue);
    const array = abiType.match(/^(.*)\[(\d*)\]$/);
    if (array) {
      const items = value.map((x) => this.writeEthValue(array[1], x, components));
      return v(array[2] === '' ? EthKind.ARRAY : EthKind.FIXED_ARRAY, m.array(items, TypeId.ArrayEthereumValue));
    }
    if (abiType === 'tuple') {
      const items = components.map((c, i) => this.writeEthValue(c.type, value[i], c.components));
      return v(EthKind.TUPLE, m.array(items, TypeId.ArrayEthereumValue));
    }
    if (abiType === 'address') {
      const bytes = hexToBytes(value);
      if (bytes.length !== 20) throw new Error(`not an address: ${value}`);
      return v(EthKind.ADDRESS, m.uint8Array(bytes));
    }
    if (abiType === 'bool') return v(EthKind.BOOL, value ? 1 : 0);
    if (abiType === 'string') return v(EthKind.STRING, m.string(value));
    if (abiType === 'bytes') return v(EthKind.BYTES, m.uint8Array(hexToBytes(value)));
    if (/^bytes\d+$/.test(abiType)) {
      const bytes = hexToBytes(value);
      if (bytes.length !== Number(abiType.slice(5))) throw new Error(`not a ${abiType}: ${value}`);
      return v(EthKind.FIXED_BYTES, m.uint8Array(bytes));
    }
    const int = abiType.match(/^(u?)int(\d*)$/);
    if (int) {
      const n = BigInt(value);
      const bits = BigInt(int[2] || 256);
      if (int[1] ? n < 0n || n >= 1n << bits : n < -(1n << (bits - 1n)) || n >= 1n << (bits - 1n)) {
        throw new Error(`${value} does not fit ${abiType}`);
      }
      return v(int[1] ? EthKind.UINT : EthKind.INT, m.bigInt(n));
    }
    throw new Error(`unsupported ABI type ${abiType}`);
  }

  /** ethereum.Event { address, logIndex, transactionLogIndex, logType, block, transaction, parameters, receipt }. */
  writeEvent(ev) {
    const m = this.mem;
    const bytes = (hex) => m.uint8Array(hexToBytes(hex));
    const big = (n) => m.bigInt(BigInt(n));
    const b = ev.block;
    const word = (n) => '0x' + BigInt(n).toString(16).padStart(64, '0');
    const block = m.struct(
      [
        bytes(b.hash || word(b.number)), // hash
        bytes(b.parentHash || word(BigInt(b.number) - 1n)), // parentHash
        bytes(word(0)), // unclesHash
        bytes('0x' + '00'.repeat(20)), // author
        bytes(word(0)), // stateRoot
        bytes(word(0)), // transactionsRoot
        bytes(word(0)), // receiptsRoot
        big(b.number), // number
        big(0), // gasUsed
        big(30000000), // gasLimit
        big(b.timestamp), // timestamp
        big(0), // difficulty
        big(0), // totalDifficulty
        0, // size: null
        big(1), // baseFeePerGas
      ],
      TypeId.EthereumBlock,
    );
    const t = ev.transaction;
    const tx = m.struct(
      [
        bytes(t.hash), // hash
        big(t.index || 0), // index
        bytes(t.from), // from
        t.to ? bytes(t.to) : 0, // to
        big(t.value || 0), // value
        big(t.gasLimit || 1000000), // gasLimit
        big(t.gasPrice || 1), // gasPrice
        bytes(t.input || '0x'), // input
        big(t.nonce || 0), // nonce
      ],
      TypeId.EthereumTransaction,
    );
    const params = ev.params.map((p) =>
      m.struct([m.string(p.name), this.writeEthValue(p.type, p.value, p.components)], TypeId.EventParam),
    );
    return m.struct(
      [
        bytes(ev.address), // address
        big(ev.logIndex), // logIndex
        big(ev.transactionLogIndex ?? ev.logIndex), // transactionLogIndex
        0, // logType: null
        block,
        tx,
        m.array(params, TypeId.ArrayEventParam), // parameters
        0, // receipt: null (no receipt: true in the manifest)
      ],
      TypeId.EthereumEvent,
    );
  }

  handle(handler, ev) {
    const fn = this.instance.exports[handler];
    if (typeof fn !== 'function') throw new HandlerError(`${this.name} exports no handler ${handler}`);
    fn(this.writeEvent(ev));
  }
}

/** {data source name: path of its compiled mapping} from graph build's output manifest. */
function wasmByDataSource(buildDir) {
  const manifest = path.join(buildDir, 'subgraph.yaml');
  if (!fs.existsSync(manifest)) throw new Error(`${manifest} not found: run \`make subgraph\``);
  const yaml = require('js-yaml'); // graph-cli's own dependency
  const doc = yaml.load(fs.readFileSync(manifest, 'utf8'));
  return new Map(doc.dataSources.map((ds) => [ds.name, path.join(buildDir, ds.mapping.file)]));
}

class Harness {
  constructor(buildDir, schemaPath) {
    this.wasm = wasmByDataSource(buildDir);
    this.store = new Store(parseSchema(fs.readFileSync(schemaPath, 'utf8')));
    this.logs = [];
    this.modules = new Map();
  }

  /** A fresh instance of the data source's mapping (modules are compiled once per file). */
  mapping(dataSource) {
    const file = this.wasm.get(dataSource);
    if (!file) throw new Error(`no data source ${dataSource} in the built manifest`);
    if (!this.modules.has(file)) this.modules.set(file, new WebAssembly.Module(fs.readFileSync(file)));
    return new Mapping(this.modules.get(file), dataSource, this.store, this.logs);
  }

  /** Runs the events in order; stops at the first failing handler, as a graph node would. */
  run(events) {
    for (let i = 0; i < events.length; i++) {
      const ev = events[i];
      try {
        this.mapping(ev.dataSource).handle(ev.handler, ev);
      } catch (err) {
        if (!(err instanceof HandlerError) && !(err instanceof WebAssembly.RuntimeError)) throw err;
        return { handled: i, error: { event: i, handler: ev.handler, message: err.message } };
      }
    }
    return { handled: events.length, error: null };
  }
}

module.exports = { Harness, Store, Mapping, HandlerError, bytesToBigInt };
