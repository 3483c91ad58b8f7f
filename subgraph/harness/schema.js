'use strict';
// Just enough of schema.graphql to check what a mapping stores the way graph-node does on
// store.set: known fields only, no derived field set, every non-null field present, values of the
// field's type (enums by name), and immutable entities written once.

const SCALARS = new Set(['ID', 'String', 'Bytes', 'BigInt', 'BigDecimal', 'Int', 'Int8', 'Boolean', 'Timestamp']);

function stripDescriptionsAndComments(text) {
  return text
    .replace(/"""[\s\S]*?"""/g, '')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '')
    .replace(/#[^\n]*/g, '');
}

function parseType(text) {
  const t = text.trim();
  const nonNull = t.endsWith('!');
  const inner = nonNull ? t.slice(0, -1).trim() : t;
  if (inner.startsWith('[')) {
    const item = parseType(inner.slice(1, inner.lastIndexOf(']')));
    return { list: true, nonNull, item };
  }
  return { list: false, nonNull, name: inner };
}

function parseSchema(text) {
  const src = stripDescriptionsAndComments(text);
  const enums = {};
  const entities = {};
  for (const m of src.matchAll(/enum\s+(\w+)\s*\{([^}]*)\}/g)) {
    enums[m[1]] = new Set(m[2].split(/\s+/).filter(Boolean));
  }
  for (const m of src.matchAll(/type\s+(\w+)\s*@entity(\([^)]*\))?\s*\{([^}]*)\}/g)) {
    const immutable = /immutable\s*:\s*true/.test(m[2] || '');
    const fields = {};
    for (const line of m[3].split('\n')) {
      const f = line.trim().match(/^(\w+)\s*:\s*([^@]+?)\s*(@.*)?$/);
      if (!f) continue;
      fields[f[1]] = { type: parseType(f[2]), derived: /@derivedFrom/.test(f[3] || '') };
    }
    entities[m[1]] = { immutable, fields };
  }
  return { enums, entities };
}

/** Store value kinds a field's (non-list) type accepts. */
function kindsFor(schema, name) {
  if (name === 'ID' || name === 'String' || schema.enums[name]) return ['String'];
  if (name === 'Bytes') return ['Bytes'];
  if (name === 'BigInt') return ['BigInt'];
  if (name === 'BigDecimal') return ['BigDecimal'];
  if (name === 'Int') return ['Int'];
  if (name === 'Int8') return ['Int8'];
  if (name === 'Boolean') return ['Boolean'];
  if (name === 'Timestamp') return ['Timestamp'];
  if (schema.entities[name]) return ['String']; // a reference is the referenced entity's id
  throw new Error(`unknown type ${name}`);
}

function checkValue(schema, type, value, where) {
  if (value.kind === 'Null') {
    if (type.nonNull) throw new Error(`${where}: null for non-null field`);
    return;
  }
  if (type.list) {
    if (value.kind !== 'Array') throw new Error(`${where}: expected a list, got ${value.kind}`);
    value.value.forEach((v, i) => checkValue(schema, type.item, v, `${where}[${i}]`));
    return;
  }
  const kinds = kindsFor(schema, type.name);
  if (!kinds.includes(value.kind)) throw new Error(`${where}: expected ${type.name}, got ${value.kind}`);
  if (schema.enums[type.name] && !schema.enums[type.name].has(value.value)) {
    throw new Error(`${where}: ${JSON.stringify(value.value)} is not a value of enum ${type.name}`);
  }
}

/** Throws as graph-node would when `data` (field -> {kind, value}) is not a valid `entityType`. */
function validateEntity(schema, entityType, id, data) {
  const entity = schema.entities[entityType];
  if (!entity) throw new Error(`unknown entity type ${entityType}`);
  const where = `${entityType}[${id}]`;
  for (const [field, value] of Object.entries(data)) {
    const def = entity.fields[field];
    if (!def) throw new Error(`${where}: unknown field \`${field}\``);
    if (def.derived) throw new Error(`${where}: derived field \`${field}\` cannot be set`);
    checkValue(schema, def.type, value, `${where}.${field}`);
  }
  for (const [field, def] of Object.entries(entity.fields)) {
    if (def.derived || !def.type.nonNull) continue;
    if (!(field in data) || data[field].kind === 'Null') {
      throw new Error(`${where}: missing value for non-nullable field \`${field}\``);
    }
  }
  if (data.id && data.id.value !== id) throw new Error(`${where}: id field ${JSON.stringify(data.id.value)} differs`);
}

module.exports = { parseSchema, validateEntity, SCALARS };
