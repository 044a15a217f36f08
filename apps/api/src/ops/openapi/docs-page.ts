import { escapeHtml } from '../escape-html';
import type { OpenApiDocument } from './openapi-document';

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  $ref?: string;
  type?: string | string[];
  description?: string;
};
interface Parameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema: Schema;
}
interface ResponseObject {
  description: string;
  content?: Record<string, { schema: Schema }>;
}
type Operation = {
  operationId: string;
  summary: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema: Schema }> };
  responses: Record<string, ResponseObject>;
};
interface Row {
  field: string;
  type: string;
  required: boolean;
  notes: string;
}

const ACCESS_TEXT: Record<string, string> = {
  apiKey: 'admin API key',
  session: 'dashboard session',
  metricsToken: 'METRICS_TOKEN (or METRICS_PUBLIC=true without one)',
};

/** A self-contained reference page rendered from the OpenAPI document: no scripts, fonts or styles from elsewhere. */
export function renderDocsPage(doc: OpenApiDocument): string {
  const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas ?? {};
  const info = doc.info as { title: string; version: string; description: string };
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op: op as Operation })),
  );
  const toc = operations
    .map(
      ({ path, method, op }) =>
        `<li><a href="#${op.operationId}"><span class="m ${method}">${method.toUpperCase()}</span> ${escapeHtml(path)}</a></li>`,
    )
    .join('\n');
  const sections = operations.map(({ path, method, op }) => renderOperation(path, method, op, schemas)).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(info.title)} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body>
<header><h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p>${inlineCode(info.description)}</p>
<p>Credentials: an API key as <code>Authorization: Bearer dsk_…</code>, or the dashboard session cookie
<code>docshelf_session</code> from <code>POST /api/auth/login</code>. Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>
</header>
<nav><ul>${toc}</ul></nav>
<main>${sections}</main>
</body></html>`;
}

function renderOperation(path: string, method: string, op: Operation, schemas: Record<string, Schema>): string {
  const security = op.security ?? [];
  const access =
    security.length === 0
      ? 'none'
      : security
          .map((s) =>
            Object.keys(s).length === 0
              ? 'none'
              : Object.keys(s)
                  .map((k) => ACCESS_TEXT[k] ?? k)
                  .join(' + '),
          )
          .join(' or ');
  const params = op.parameters ?? [];
  const paramRows = params.map((p) => ({
    field: `${p.name} (${p.in})`,
    type: typeOf(p.schema),
    required: p.required,
    notes: [p.description, constraintsOf(p.schema)].filter(Boolean).join('. '),
  }));
  const form = op.requestBody?.content?.['multipart/form-data']?.schema as { allOf?: Schema[] } | undefined;
  // A form: its fields' schema, and a note of the file part.
  const bodyRef = form?.allOf?.[0] ?? op.requestBody?.content?.['application/json']?.schema;
  const bodyTitle = form ? 'Form fields (multipart/form-data, the archive in <code>file</code>)' : 'Request body';
  const responses = Object.entries(op.responses);
  return `<section id="${op.operationId}">
<h2><span class="m ${method}">${method.toUpperCase()}</span> ${escapeHtml(path)}</h2>
<p class="summary">${escapeHtml(op.summary)}</p>
${op.description ? `<p>${inlineCode(op.description)}</p>` : ''}
<p><strong>Auth:</strong> ${escapeHtml(access)}</p>
${paramRows.length ? `<h3>Parameters</h3>${table(paramRows)}` : ''}
${bodyRef ? `<h3>${bodyTitle} <code>${escapeHtml(refName(bodyRef))}</code></h3>${table(rowsOf(resolve(bodyRef, schemas), schemas))}` : ''}
<h3>Responses</h3>
<dl>${responses.map(([status, r]) => renderResponse(status, r, schemas)).join('')}</dl>
</section>`;
}

function renderResponse(status: string, response: ResponseObject, schemas: Record<string, Schema>): string {
  const [contentType, media] = Object.entries(response.content ?? {})[0] ?? [];
  const ref = media?.schema.$ref ? media.schema : undefined;
  const body = status === '200' && ref ? table(rowsOf(resolve(ref, schemas), schemas)) : '';
  const shape = ref
    ? ` <code>${escapeHtml(refName(ref))}</code>`
    : contentType
      ? ` <code>${escapeHtml(contentType)}</code>`
      : '';
  return `<dt class="s${status[0]}">${status}${shape}</dt><dd>${inlineCode(response.description)}${body}</dd>`;
}

/** Flattens an object schema into rows; objects and arrays of objects add `field.child` and `field[].child` rows. */
function rowsOf(schema: Schema, schemas: Record<string, Schema>, prefix = '', depth = 0): Row[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([name, raw]) => {
    const property = resolve(raw, schemas);
    const items = property.items ? resolve(property.items, schemas) : undefined;
    const field = prefix + name;
    const row = { field, type: typeOf(raw), required: required.has(name), notes: constraintsOf(property) };
    const nested = items?.properties ? items : property.properties ? property : undefined;
    if (!nested || depth > 1) return [row];
    return [row, ...rowsOf(nested, schemas, `${field}${property.items ? '[]' : ''}.`, depth + 1)];
  });
}

function typeOf(schema: Schema): string {
  if (schema.$ref) return refName(schema);
  if (schema.enum) return (schema.enum as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf) return (schema.anyOf as Schema[]).map(typeOf).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items) : 'any'}`;
  return schema.type ?? 'any';
}

function constraintsOf(schema: Schema): string {
  const parts: string[] = [];
  if (schema.description) parts.push(schema.description);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  if (Array.isArray(schema.examples)) parts.push(`e.g. ${schema.examples.map((v) => JSON.stringify(v)).join(', ')}`);
  for (const [key, label] of [
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
    ['pattern', 'pattern'],
  ] as const) {
    const value = schema[key];
    // zod's .int() adds the safe-integer range, which says nothing to a reader.
    const implied = (key === 'maximum' || key === 'minimum') && Math.abs(Number(value)) === Number.MAX_SAFE_INTEGER;
    if (value !== undefined && !implied)
      parts.push(`${label} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return parts.join('; ');
}

function resolve(schema: Schema, schemas: Record<string, Schema>): Schema {
  return schema.$ref ? (schemas[refName(schema)] ?? {}) : schema;
}

function refName(schema: Schema): string {
  return (
    String(schema.$ref ?? '')
      .split('/')
      .pop() ?? ''
  );
}

function table(rows: Row[]): string {
  if (rows.length === 0) return '';
  const body = rows
    .map(
      (r) =>
        `<tr><td><code>${escapeHtml(r.field)}</code></td><td>${escapeHtml(r.type)}</td><td>${r.required ? 'yes' : ''}</td><td>${inlineCode(r.notes)}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** Escapes, then turns `backticks` into <code>. */
function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

const STYLE = `
body{font:15px/1.55 system-ui,-apple-system,Segoe UI,sans-serif;color:#1d2330;margin:0;display:grid;grid-template-columns:19rem 1fr}
header{grid-column:1/3;padding:1.2rem 2rem;border-bottom:1px solid #e3e6ec;background:#f7f8fa}
h1{margin:0 0 .4rem;font-size:1.6rem}h1 small{font-size:.9rem;color:#667}
nav{padding:1rem;border-right:1px solid #e3e6ec;position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto}
nav ul{list-style:none;margin:0;padding:0}nav li{margin:.2rem 0}nav a{text-decoration:none;color:#1d2330;font-size:.9rem}
main{padding:0 2rem 3rem;max-width:60rem}section{border-bottom:1px solid #eef0f3;padding:1rem 0}
h2{font-size:1.15rem;margin:.6rem 0}h3{font-size:.95rem;margin:1rem 0 .3rem;color:#445}
.m{display:inline-block;min-width:3.6rem;text-align:center;font:600 .75rem/1.6 ui-monospace,monospace;border-radius:3px;color:#fff;padding:0 .3rem}
.get{background:#2f7d32}.post{background:#1f5fbf}.delete{background:#b3261e}
code{font:.85em ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f3f6;padding:0 .25em;border-radius:3px}
table{border-collapse:collapse;width:100%;margin:.3rem 0 .6rem;font-size:.88rem}th,td{border:1px solid #e3e6ec;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f7f8fa}dt{font-weight:600;margin-top:.4rem}dd{margin:0 0 .4rem 1rem}.s2{color:#2f7d32}.s4,.s5{color:#b3261e}
`;
