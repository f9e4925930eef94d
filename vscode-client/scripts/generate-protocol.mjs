// Writes the client's protocol types from the server's JSON Schema (docs/protocol.schema.json,
// generated from the server's models by `python -m agentls.protocol.schema`), one file per part:
// src/protocol.generated.ts (commands and editor events) and src/protocol-log.generated.ts
// (the session log's lines, the definitions named Log*; neither part refers to the other).
//
//   node scripts/generate-protocol.mjs           write the files
//   node scripts/generate-protocol.mjs --check   exit 1 when a file differs from the schema
//
// Only the parts of JSON Schema pydantic writes are read: $ref, anyOf/oneOf, const, enum,
// type, properties/required, items, additionalProperties, description.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_PATH = join(CLIENT, '..', 'docs', 'protocol.schema.json');
export const OUTPUT_PATH = join(CLIENT, 'src', 'protocol.generated.ts');
export const LOG_OUTPUT_PATH = join(CLIENT, 'src', 'protocol-log.generated.ts');

const HEADER = [
  '// Generated from docs/protocol.schema.json by scripts/generate-protocol.mjs: do not edit.',
  '// The server\'s models (server/protocol/) are the source; `node scripts/generate-protocol.mjs` regenerates.',
  '/* eslint-disable */',
  '',
];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function key(name) {
  return IDENTIFIER.test(name) ? name : `'${name}'`;
}

function literal(value) {
  return typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(value);
}

function union(types) {
  const unique = [...new Set(types)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

function refName(ref) {
  const prefix = '#/$defs/';
  if (!ref.startsWith(prefix)) {
    throw new Error(`unsupported $ref ${ref}`);
  }
  return ref.slice(prefix.length);
}

const PRIMITIVES = { string: 'string', integer: 'number', number: 'number', boolean: 'boolean', null: 'null' };

/** The TypeScript type of a schema, written inline. */
function typeOf(schema, indent) {
  if (schema === true || schema === undefined || Object.keys(schema).length === 0) {
    return 'unknown';
  }
  if (schema.$ref) {
    return refName(schema.$ref);
  }
  const members = schema.anyOf ?? schema.oneOf;
  if (members) {
    return union(members.map((member) => typeOf(member, indent)));
  }
  if ('const' in schema) {
    return literal(schema.const);
  }
  if (schema.enum) {
    return union(schema.enum.map(literal));
  }
  if (Array.isArray(schema.type)) {
    return union(schema.type.map((type) => typeOf({ ...schema, type }, indent)));
  }
  if (schema.type === 'array') {
    const item = typeOf(schema.items, indent);
    return /[ |]/.test(item) ? `(${item})[]` : `${item}[]`;
  }
  if (schema.type === 'object') {
    if (schema.properties) {
      return objectBody(schema, indent);
    }
    const values = schema.additionalProperties;
    return `Record<string, ${values && values !== true ? typeOf(values, indent) : 'unknown'}>`;
  }
  if (schema.type in PRIMITIVES) {
    return PRIMITIVES[schema.type];
  }
  throw new Error(`unsupported schema ${JSON.stringify(schema)}`);
}

function comment(text, indent) {
  if (!text) {
    return '';
  }
  const lines = text.trim().split('\n');
  if (lines.length === 1) {
    return `${indent}/** ${lines[0]} */\n`;
  }
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function objectBody(schema, indent) {
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([name, property]) => {
    const optional = required.has(name) ? '' : '?';
    return `${comment(property.description, inner)}${inner}${key(name)}${optional}: ${typeOf(property, inner)};`;
  });
  return `{\n${fields.join('\n')}\n${indent}}`;
}

function declaration(name, schema) {
  const doc = comment(schema.description, '');
  if (schema.type === 'object' && schema.properties) {
    return `${doc}export interface ${name} ${objectBody(schema, '')}\n`;
  }
  return `${doc}export type ${name} = ${typeOf(schema, '')};\n`;
}

function commandMap(commands) {
  const entries = Object.entries(commands).map(([name, command]) => {
    const parts = [];
    if (command.properties.params) {
      parts.push(`params${command.argumentOptional ? '?' : ''}: ${typeOf(command.properties.params, '    ')}`);
    }
    parts.push(`result: ${typeOf(command.properties.result, '    ')}`);
    return `  ${key(name)}: { ${parts.join('; ')} };`;
  });
  return [
    '/** Each `agentls.*` command: its one argument (`params?`: may be left out, or `{}`) and result. */',
    `export interface Commands {\n${entries.join('\n')}\n}`,
    '',
    'export type CommandName = keyof Commands;',
    '',
    `export const COMMAND_NAMES = [${Object.keys(commands).map(literal).join(', ')}] as const;`,
    '',
  ].join('\n');
}

function isLogDefinition(name) {
  return name.startsWith('Log');
}

/** The two files' texts: [commands and editor events, the session log's lines]. */
export function generate(schema) {
  const { notifications, commands } = schema.properties;
  const [[method, event]] = Object.entries(notifications.properties);
  const eventUnion = schema.$defs[refName(event.$ref)];
  const kinds = Object.keys(eventUnion.discriminator?.mapping ?? {});
  const parts = [
    ...HEADER,
    `export const EVENT_METHOD = ${literal(method)};`,
    '',
    `/** The \`kind\`s of \`${method}\` this client knows. */`,
    `export const EVENT_KINDS = [${kinds.map(literal).join(', ')}] as const;`,
    '',
    commandMap(commands.properties),
  ];
  const logParts = [...HEADER];
  for (const [name, definition] of Object.entries(schema.$defs)) {
    (isLogDefinition(name) ? logParts : parts).push(declaration(name, definition));
  }
  return [parts.join('\n'), logParts.join('\n')];
}

function main() {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'));
  const texts = generate(schema);
  const outputs = [OUTPUT_PATH, LOG_OUTPUT_PATH];
  if (process.argv.includes('--check')) {
    outputs.forEach((output, index) => {
      let current = '';
      try {
        current = readFileSync(output, 'utf8');
      } catch {
        // missing: differs
      }
      if (current !== texts[index]) {
        const name = relative(CLIENT, output);
        console.error(
          `${name} differs from docs/protocol.schema.json: run \`node scripts/generate-protocol.mjs\` in vscode-client.`,
        );
        process.exitCode = 1;
      }
    });
    return;
  }
  outputs.forEach((output, index) => writeFileSync(output, texts[index]));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main();
}
