'use strict';
// AssemblyScript 0.19 objects in a mapping's linear memory, laid out as graph-node's runtime lays
// them out for apiVersion 0.0.9 (graph-cli compiles with --runtime stub --exportRuntime):
//
//   every managed object: a 20-byte header before its pointer, with the class id at ptr-8 and the
//   payload size at ptr-4 (rt/common.ts OBJECT), allocated by the exported __new(size, classId);
//   class ids come from the mapping's exported id_of_type(TypeId) (graph-ts global/global.ts);
//   String      UTF-16LE code units, length = payload size / 2
//   ArrayBuffer raw bytes
//   Uint8Array  { buffer, dataStart, byteLength }  (Bytes, Address, BigInt are Uint8Arrays;
//               BigInt is little-endian two's complement, as graph-node writes it)
//   Array<T>    { buffer, dataStart, byteLength, length_ }
//   class       fields in declaration order, each aligned to its size (pointers 4 bytes)
//   enum-like values (ethereum.Value, store Value) { kind: i32, data: u64 at offset 8 }

// graph-ts TypeId (global/global.ts): the argument of id_of_type.
const TypeId = {
  String: 0,
  ArrayBuffer: 1,
  Uint8Array: 6,
  BigDecimal: 12,
  ArrayEthereumValue: 15,
  ArrayStoreValue: 16,
  ArrayEventParam: 19,
  ArrayTypedMapEntryStringStoreValue: 21,
  EventParam: 23,
  EthereumTransaction: 24,
  EthereumBlock: 25,
  EthereumValue: 30,
  StoreValue: 31,
  EthereumEvent: 33,
  TypedMapEntryStringStoreValue: 34,
  TypedMapStringStoreValue: 36,
};

// ethereum.ValueKind (graph-ts chain/ethereum.ts)
const EthKind = { ADDRESS: 0, FIXED_BYTES: 1, BYTES: 2, INT: 3, UINT: 4, BOOL: 5, STRING: 6, FIXED_ARRAY: 7, ARRAY: 8, TUPLE: 9 };
// store ValueKind (graph-ts common/value.ts)
const StoreKind = { STRING: 0, INT: 1, BIGDECIMAL: 2, BOOL: 3, ARRAY: 4, NULL: 5, BYTES: 6, BIGINT: 7, INT8: 8, TIMESTAMP: 9 };

function hexToBytes(hex) {
  const h = hex.startsWith('0x') ? hex.slice(2) : hex;
  if (h.length % 2 !== 0 || /[^0-9a-fA-F]/.test(h)) throw new Error(`not hex: ${hex}`);
  return Uint8Array.from(Buffer.from(h, 'hex'));
}

function bytesToHex(bytes) {
  return '0x' + Buffer.from(bytes).toString('hex');
}

/** Minimal little-endian two's complement bytes of a BigInt (at least one byte). */
function bigIntToBytes(n) {
  n = BigInt(n);
  const out = [];
  for (;;) {
    const byte = Number(n & 0xffn);
    out.push(byte);
    n >>= 8n; // arithmetic shift: -1 stays -1
    const signBit = byte & 0x80;
    if ((n === 0n && !signBit) || (n === -1n && signBit)) break;
  }
  return Uint8Array.from(out);
}

function bytesToBigInt(bytes) {
  if (bytes.length === 0) return 0n;
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
  if (bytes[bytes.length - 1] & 0x80) n -= 1n << BigInt(8 * bytes.length);
  return n;
}

class AscMemory {
  constructor(exports) {
    this.exports = exports;
    this.classIds = new Map();
  }

  // The memory can grow during any call into the module: take a fresh view every time.
  get view() {
    return new DataView(this.exports.memory.buffer);
  }

  get bytes() {
    return new Uint8Array(this.exports.memory.buffer);
  }

  classId(typeId) {
    if (!this.classIds.has(typeId)) this.classIds.set(typeId, this.exports.id_of_type(typeId));
    return this.classIds.get(typeId);
  }

  alloc(size, typeId) {
    return this.exports.__new(size, this.classId(typeId)) >>> 0;
  }

  u32(ptr) {
    return this.view.getUint32(ptr, true);
  }

  setU32(ptr, value) {
    this.view.setUint32(ptr, value, true);
  }

  payloadSize(ptr) {
    return this.u32(ptr - 4);
  }

  // ---------------------------------------------------------------- writers

  string(s) {
    const ptr = this.alloc(s.length * 2, TypeId.String);
    const view = this.view;
    for (let i = 0; i < s.length; i++) view.setUint16(ptr + 2 * i, s.charCodeAt(i), true);
    return ptr;
  }

  arrayBuffer(bytes) {
    const ptr = this.alloc(bytes.length, TypeId.ArrayBuffer);
    this.bytes.set(bytes, ptr);
    return ptr;
  }

  uint8Array(bytes) {
    const buffer = this.arrayBuffer(bytes);
    const ptr = this.alloc(12, TypeId.Uint8Array);
    this.setU32(ptr, buffer);
    this.setU32(ptr + 4, buffer);
    this.setU32(ptr + 8, bytes.length);
    return ptr;
  }

  bigInt(n) {
    return this.uint8Array(bigIntToBytes(n));
  }

  /** Array<T> of pointers. */
  array(ptrs, typeId) {
    const buffer = this.alloc(4 * ptrs.length, TypeId.ArrayBuffer);
    const view = this.view;
    ptrs.forEach((p, i) => view.setUint32(buffer + 4 * i, p, true));
    const ptr = this.alloc(16, typeId);
    this.setU32(ptr, buffer);
    this.setU32(ptr + 4, buffer);
    this.setU32(ptr + 8, 4 * ptrs.length);
    this.setU32(ptr + 12, ptrs.length);
    return ptr;
  }

  /** An object whose fields are all pointers, in order. */
  struct(ptrs, typeId) {
    const ptr = this.alloc(4 * ptrs.length, typeId);
    const view = this.view;
    ptrs.forEach((p, i) => view.setUint32(ptr + 4 * i, p, true));
    return ptr;
  }

  /** { kind: i32, data: u64 }: ethereum.Value or store Value. */
  enumValue(kind, data, typeId) {
    const ptr = this.alloc(16, typeId);
    const view = this.view;
    view.setInt32(ptr, kind, true);
    view.setBigUint64(ptr + 8, BigInt.asUintN(64, BigInt(data)), true);
    return ptr;
  }

  // ---------------------------------------------------------------- readers

  readString(ptr) {
    if (ptr === 0) return null;
    const n = this.payloadSize(ptr) / 2;
    const view = this.view;
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(view.getUint16(ptr + 2 * i, true));
    return s;
  }

  readUint8Array(ptr) {
    const dataStart = this.u32(ptr + 4);
    const length = this.u32(ptr + 8);
    return this.bytes.slice(dataStart, dataStart + length);
  }

  readBigInt(ptr) {
    return bytesToBigInt(this.readUint8Array(ptr));
  }

  /** The pointers held by an Array<T> of references. */
  readArray(ptr) {
    const dataStart = this.u32(ptr + 4);
    const length = this.u32(ptr + 12);
    const out = [];
    for (let i = 0; i < length; i++) out.push(this.u32(dataStart + 4 * i));
    return out;
  }

  readEnumValue(ptr) {
    const view = this.view;
    return { kind: view.getInt32(ptr, true), data: view.getBigUint64(ptr + 8, true) };
  }
}

module.exports = { AscMemory, TypeId, EthKind, StoreKind, hexToBytes, bytesToHex, bigIntToBytes, bytesToBigInt };
