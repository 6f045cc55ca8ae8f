import { EXAMPLES, isRef, type ExampleValue, type OperationExample } from './examples.ts';

/**
 * The reference's code samples, generated from the OpenAPI document: for every operation a curl
 * sample (signed where the route takes a signature) and a Node.js sample (the SDK's method of that
 * operation for the integration routes; `fetch` with the credential the route really takes for the
 * journey's and the console's). Pure: the document in, the samples out. `npm run openapi` writes
 * them into openapi/openapi.json as `x-codeSamples`, which Redoc shows beside each operation;
 * tests/docs/reference-samples.test.ts runs every one of them against a started service.
 */

/** The one way to sign from a shell (docs/authentication.md#signing-from-a-shell): v2 over `<ts>.<METHOD>.<target>.<body>`. */
export const SHELL_SIGN = `idv_sign() { printf '%s' "$1.$2.$3.$4" | openssl dgst -sha256 -hmac "$IDV_SIGNING_SECRET" | sed 's/^.* //'; }`;

/** Where a default start serves the API: the samples' address (the docs site and the tests put the real one in its place). */
export const SAMPLE_API = 'http://localhost:8080';

/** Who calls an operation, with which credential. */
type Caller = 'integrator' | 'journey' | 'journey-open' | 'wallet' | 'console' | 'operator';

export interface CodeSample {
  lang: 'Shell' | 'JavaScript';
  label: string;
  source: string;
}

export interface OperationSamples {
  operationId: string;
  method: string;
  path: string;
  caller: Caller;
  /** The route needs a recent re-authentication of the operator (X-Service-Reauthenticated-At). */
  reauth: boolean;
  /** The success status the operation documents (its first 2xx answer). */
  status: number;
  /** The variables the samples read (ids of earlier answers, credentials). */
  variables: string[];
  curl: CodeSample;
  node: CodeSample;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Operation {
  tags?: string[];
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, unknown> }>;
  security?: Record<string, unknown>[];
  'x-console'?: { operator: boolean; reauth?: boolean; api_key: boolean };
  'x-codeSamples'?: CodeSample[];
}
interface Document {
  info?: { description?: string };
  paths: Record<string, Record<string, Operation>>;
}

/** What the reference says of its samples, once, above the operations. */
const SAMPLES_NOTE = [
  '**Code samples.** Every operation shows a curl sample and a Node.js sample (the SDK, `@idv/sdk`, for the integration routes; `fetch` with the',
  "credential the route takes for the hosted journey's and the console's routes, labelled so). They read the key from `IDV_API_KEY` and",
  '`IDV_SIGNING_SECRET`, and ids from variables named after their parameter (`$CASE_ID` for `{case_id}`). The curl samples of signed routes',
  'sign with one shell function, defined once (see the authentication guide, "Signing from a shell"):',
  // Inline, not a fenced block: a block would be a scrollable region without keyboard access (axe).
  `\`${SHELL_SIGN}\``,
  '',
  'CI runs every sample against a started service.',
].join('\n');

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** The document with `x-codeSamples` on every operation (a copy; the input is not changed). */
export function withCodeSamples<D extends Document>(doc: D, sdkMethods: ReadonlySet<string>): D {
  const copy = structuredClone(doc);
  if (copy.info) copy.info.description = `${copy.info.description ?? ''}\n\n${SAMPLES_NOTE}`;
  for (const s of referenceSamples(doc, sdkMethods)) copy.paths[s.path][s.method.toLowerCase()]['x-codeSamples'] = [s.curl, s.node];
  return copy;
}

/**
 * Every operation's samples, in the document's order. `sdkMethods` are the IdvClient's methods:
 * an integration operation without one is an error (the SDK must cover every integration route).
 */
export function referenceSamples(doc: Document, sdkMethods: ReadonlySet<string>): OperationSamples[] {
  const out: OperationSamples[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      out.push(operationSamples(path, method.toUpperCase(), op, sdkMethods));
    }
  }
  return out;
}

function callerOf(op: Operation): Caller {
  if (op.security?.some((s) => 'sessionToken' in s)) return 'journey';
  if (op.security && op.security.length === 0) return op.tags?.includes('wallet-protocol') ? 'wallet' : 'journey-open';
  const ext = op['x-console'];
  if (ext && !ext.api_key) return ext.operator ? 'operator' : 'console';
  return 'integrator';
}

function operationSamples(path: string, method: string, op: Operation, sdkMethods: ReadonlySet<string>): OperationSamples {
  const id = op.operationId;
  const example: OperationExample = EXAMPLES[id] ?? {};
  const caller = callerOf(op);
  const headers = new Set((op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()));
  const signed = headers.has('x-service-signature');
  const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
  for (const q of (op.parameters ?? []).filter((p) => p.in === 'query' && p.required)) {
    if (example.query?.[q.name] === undefined) throw new Error(`${id}: the required query parameter ${q.name} has no example (scripts/code-samples/examples.ts)`);
  }
  const contentTypes = Object.keys(op.requestBody?.content ?? {});
  const json = contentTypes.includes('application/json');
  if (json && !example.body && requiredBody(op)) throw new Error(`${id}: its request body has no example (scripts/code-samples/examples.ts)`);
  if (op.requestBody && !json && !example.file) throw new Error(`${id}: its binary body has no example file (scripts/code-samples/examples.ts)`);
  const status = Number(Object.keys(op.responses).find((c) => /^2\d\d$/.test(c)));
  const successContent = Object.keys(op.responses[String(status)]?.content ?? {});
  const answer: Answer = status === 204 ? 'none' : successContent.includes('application/json') ? 'json' : successContent.some((c) => c.startsWith('text/')) ? 'text' : 'bytes';
  if (caller === 'integrator' && !sdkMethods.has(id)) throw new Error(`${id}: an integration route without its IdvClient method (packages/sdk/src/client.ts)`);

  const segments = pathParams.map((name) => ({ name, value: example.path?.[name] ?? { variable: name.toUpperCase() } }));
  const shape: Shape = { id, method, path, caller, signed, segments, query: example.query ?? {}, body: json ? example.body : undefined, file: example.file, answer, reauth: op['x-console']?.reauth === true };
  const variables = new Set<string>();
  collectVariables([shape.segments.map((s) => s.value), shape.query, shape.body ?? null], variables);
  for (const v of credentialVariables(shape)) variables.add(v);
  return {
    operationId: id,
    method,
    path,
    caller,
    reauth: shape.reauth,
    status,
    variables: [...variables],
    curl: { lang: 'Shell', label: `curl${LABEL_SUFFIX[caller]}`, source: curlSample(shape) },
    node: { lang: 'JavaScript', label: caller === 'integrator' ? 'Node.js (SDK)' : `Node.js${LABEL_SUFFIX[caller]}`, source: caller === 'integrator' ? sdkSample(shape) : fetchSample(shape) },
  };
}

type Answer = 'json' | 'text' | 'bytes' | 'none';
interface Shape {
  id: string;
  method: string;
  path: string;
  caller: Caller;
  signed: boolean;
  segments: { name: string; value: ExampleValue }[];
  query: Record<string, ExampleValue>;
  body: { [k: string]: ExampleValue } | undefined;
  file: OperationExample['file'];
  answer: Answer;
  reauth: boolean;
}

const LABEL_SUFFIX: Record<Caller, string> = {
  integrator: '',
  journey: ' (journey session)',
  'journey-open': ' (journey, no credential)',
  wallet: ' (identity wallet, no credential)',
  console: ' (console credential)',
  operator: ' (console credential)',
};

/** Who calls a route that is not an integrator's, said at the top of its samples. */
const WHO: Record<Exclude<Caller, 'integrator'>, string> = {
  journey: 'Called by the hosted journey, not by integrators: the credential is the session token of the journey link (its fragment).',
  'journey-open': 'Called by the hosted journey on a second device, not by integrators: no credential, the code shown on the first device.',
  wallet: "Called by the person's identity wallet (OpenID4VP), not by integrators: no credential, the wallet request's id.",
  console: "Called by the console server, not by integrators: the console credential (DATA_DIR/console-credential), no operator.",
  operator:
    'Called by the console server, not by integrators: the console credential (DATA_DIR/console-credential), acting for the operator named in X-Service-Operator.',
};
const REAUTH_NOTE = 'X-Service-Reauthenticated-At: an ID token of that operator from the identity provider, at most five minutes old.';

function credentialVariables(s: Shape): string[] {
  switch (s.caller) {
    case 'integrator':
      return s.signed ? ['IDV_API_KEY', 'IDV_SIGNING_SECRET'] : ['IDV_API_KEY'];
    case 'journey':
      return ['IDV_SESSION_TOKEN'];
    case 'journey-open':
    case 'wallet':
      return [];
    case 'console':
      return ['IDV_CONSOLE_KEY'];
    case 'operator':
      return s.reauth ? ['IDV_CONSOLE_KEY', 'IDV_OPERATOR_ID', 'IDV_REAUTH_TOKEN'] : ['IDV_CONSOLE_KEY', 'IDV_OPERATOR_ID'];
  }
}

function requiredBody(op: Operation): boolean {
  return (op as { requestBody?: { required?: boolean } }).requestBody?.required === true;
}

function collectVariables(v: unknown, into: Set<string>): void {
  if (isRef(v)) into.add(v.variable);
  else if (Array.isArray(v)) for (const x of v) collectVariables(x, into);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) collectVariables(x, into);
}

// ---- curl ----------------------------------------------------------------------------------

/** A value in a shell double-quoted string: a variable as `$NAME`, text with `\ " $ \`` escaped. */
function shellPart(v: ExampleValue): string {
  return isRef(v) ? `$${v.variable}` : String(v).replace(/[\\"$`]/g, (c) => `\\${c}`);
}

/** The request target as the shell writes it (inside double quotes): path with its variables, then the query. */
function shellTarget(s: Shape): string {
  let target = s.path.replace(/[\\"$`]/g, (c) => `\\${c}`);
  for (const seg of s.segments) target = target.replace(`{${seg.name}}`, shellPart(seg.value));
  const query = Object.entries(s.query).map(([k, v]) => `${k}=${isRef(v) ? `$${v.variable}` : encodeURIComponent(String(v))}`);
  return query.length ? `${target}?${query.join('&')}` : target;
}

// A private-use character: JSON.stringify leaves it as it is, and no example holds one.
const MARK = '\uE000';
/** JSON text with each variable left as a marker: `\0NAME\0` in a string, `\0#NAME\0` for a number's. */
function jsonWithMarkers(body: unknown): string {
  const marked = (_k: string, v: unknown) => (isRef(v) ? `${MARK}${v.number || v.json ? '#' : ''}${v.variable}${MARK}` : v);
  const flat = JSON.stringify(body, marked);
  // Longer bodies one field a line (the samples' panel is narrow): the signature covers the exact bytes either way.
  return flat.length <= 60 ? flat : JSON.stringify(body, marked, 2);
}

/** The body as a shell word: single-quoted when it has no variable, else double-quoted with `$NAME` in place. */
function shellBody(body: unknown): string {
  const text = jsonWithMarkers(body);
  if (!text.includes(MARK)) return `'${text.replace(/'/g, `'\\''`)}'`;
  const escaped = text.replace(/[\\"$`]/g, (c) => `\\${c}`);
  // A variable that stands for a number (FLOW_VERSION) or for JSON (SEQUENCE_FRAMES) is written without quotes in the JSON.
  // A number's variable loses the quotes of the JSON string it was marked in.
  return `"${escaped.replace(new RegExp(`\\\\"${MARK}#(\\w+)${MARK}\\\\"`, 'g'), '$$$1').replace(new RegExp(`${MARK}(\\w+)${MARK}`, 'g'), '$$$1')}"`;
}

function curlSample(s: Shape): string {
  const lines: string[] = [];
  if (s.caller !== 'integrator') lines.push(...commentLines('# ', WHO[s.caller]));
  if (s.reauth) lines.push(...commentLines('# ', REAUTH_NOTE));
  if (s.signed) lines.push(...commentLines('# ', 'Signed: idv_sign is defined once in the guide (docs/authentication.md#signing-from-a-shell).'));
  const target = shellTarget(s);
  if (s.body !== undefined) lines.push(`BODY=${shellBody(s.body)}`);
  if (s.signed) lines.push('TS=$(date +%s)');
  const args: string[] = [];
  args.push(`curl -fsS${s.method === 'GET' ? '' : ` -X ${s.method}`} "${SAMPLE_API}${target}"`);
  switch (s.caller) {
    case 'integrator':
      args.push(`-H "Authorization: Bearer $IDV_API_KEY"`);
      break;
    case 'journey':
      args.push(`-H "Authorization: Session $IDV_SESSION_TOKEN"`);
      break;
    case 'journey-open':
    case 'wallet':
      break;
    case 'console':
      args.push(`-H "Authorization: Bearer $IDV_CONSOLE_KEY"`);
      break;
    case 'operator':
      args.push(`-H "Authorization: Bearer $IDV_CONSOLE_KEY"`, `-H "X-Service-Operator: $IDV_OPERATOR_ID"`);
      if (s.reauth) args.push(`-H "X-Service-Reauthenticated-At: $IDV_REAUTH_TOKEN"`);
      break;
  }
  if (s.body !== undefined) args.push(`-H 'Content-Type: application/json'`);
  if (s.file) args.push(`-H 'Content-Type: ${s.file.contentType}'`);
  if (s.signed) {
    args.push(`-H "Idempotency-Key: $(openssl rand -hex 16)"`);
    args.push(`-H "X-Service-Timestamp: $TS"`);
    args.push(`-H "X-Service-Signature: v2=$(idv_sign "$TS" ${s.method} "${target}" "${s.body !== undefined ? '$BODY' : ''}")"`);
  }
  if (s.body !== undefined) args.push(`--data-raw "$BODY"`);
  if (s.file) args.push(`--data-binary @${s.file.name}`);
  if (s.answer === 'bytes') args.push(`-o ${binaryName(s)}`);
  lines.push(args.join(' \\\n  '));
  return lines.join('\n') + '\n';
}

function binaryName(s: Shape): string {
  // getCaseImage: case-image
  return s.id.replace(/^get/, '').replace(/[A-Z]/g, (c, i: number) => (i ? '-' : '') + c.toLowerCase());
}

// ---- Node.js ---------------------------------------------------------------------------------

const IDENT = /^[A-Za-z_$][\w$]*$/;

/** A value as JavaScript source: variables read from the environment, objects as literals. */
function js(v: ExampleValue, indent = ''): string {
  if (isRef(v)) return v.number ? `Number(process.env.${v.variable})` : v.json ? `JSON.parse(process.env.${v.variable} ?? 'null')` : `process.env.${v.variable}`;
  if (Array.isArray(v)) return `[${v.map((x) => js(x, indent)).join(', ')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v);
    if (entries.length === 0) return '{}';
    const inner = entries.map(([k, x]) => `${IDENT.test(k) ? k : JSON.stringify(k)}: ${js(x, indent + '  ')}`);
    const flat = `{ ${inner.join(', ')} }`;
    if (flat.length <= 60) return flat;
    return `{\n${inner.map((l) => `${indent}  ${l}`).join(',\n')},\n${indent}}`;
  }
  return typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(v);
}

const SDK_SETUP = [
  "import { IdvClient } from '@idv/sdk';",
  '',
  'const idv = new IdvClient({',
  `  baseUrl: '${SAMPLE_API}',`,
  '  apiKey: process.env.IDV_API_KEY,',
  '  signingSecret: process.env.IDV_SIGNING_SECRET,',
  '});',
  '',
];

/** Text cut into lines of about 80 characters, each with the prefix (`# `, `// `): the samples' panel is narrow. */
function commentLines(prefix: string, text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > 80) {
      lines.push(prefix + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(prefix + line);
  return lines;
}

/**
 * The IdvClient call: its arguments are the path parameters in order, then the query (a list's
 * filters) and the body, as the SDK's methods take them (packages/sdk/src/client.ts). The one
 * method that takes a query parameter as an argument is replayWebhookEndpointDelivery.
 */
function sdkSample(s: Shape): string {
  const args = s.segments.map((seg) => js(seg.value));
  const query = { ...s.query };
  if (s.id === 'replayWebhookEndpointDelivery') {
    args.push(js(query.delivery_id));
    delete query.delivery_id;
  }
  if (Object.keys(query).length > 0) args.push(js(query));
  if (s.body !== undefined) args.push(js(s.body));
  const call = `idv.${s.id}(${args.join(', ')})`;
  const lines = [...SDK_SETUP];
  if (s.answer === 'none') lines.push(`await ${call}; // 204: nothing to read`);
  else if (s.answer === 'bytes') {
    lines.unshift("import { writeFileSync } from 'node:fs';");
    lines.push(`const { contentType, bytes } = await ${call};`, `writeFileSync('${binaryName(s)}', bytes);`, 'console.log(`${contentType}, ${bytes.length} bytes`);');
  } else if (s.answer === 'text') lines.push(`console.log(await ${call});`);
  else lines.push(`const result = await ${call};`, 'console.log(JSON.stringify(result, null, 2));');
  return lines.join('\n') + '\n';
}

function fetchSample(s: Shape): string {
  const lines: string[] = [];
  const imports: string[] = [];
  if (s.file) imports.push('readFileSync');
  if (s.answer === 'bytes') imports.push('writeFileSync');
  if (imports.length) lines.push(`import { ${imports.join(', ')} } from 'node:fs';`, '');
  lines.push(...commentLines('// ', WHO[s.caller as Exclude<Caller, 'integrator'>]));
  if (s.reauth) lines.push(...commentLines('// ', REAUTH_NOTE));
  let path = s.path;
  for (const seg of s.segments) path = path.replace(`{${seg.name}}`, isRef(seg.value) ? `\${process.env.${seg.value.variable}}` : String(seg.value));
  const query = Object.entries(s.query).map(([k, v]) => `${k}=${isRef(v) ? `\${process.env.${v.variable}}` : encodeURIComponent(String(v))}`);
  const url = `\`${SAMPLE_API}${path}${query.length ? `?${query.join('&')}` : ''}\``;
  const headers: string[] = [];
  if (s.caller === 'journey') headers.push('authorization: `Session ${process.env.IDV_SESSION_TOKEN}`');
  if (s.caller === 'console' || s.caller === 'operator') headers.push('authorization: `Bearer ${process.env.IDV_CONSOLE_KEY}`');
  if (s.caller === 'operator') headers.push("'x-service-operator': process.env.IDV_OPERATOR_ID");
  if (s.reauth) headers.push("'x-service-reauthenticated-at': process.env.IDV_REAUTH_TOKEN");
  if (s.body !== undefined) headers.push("'content-type': 'application/json'");
  if (s.file) headers.push(`'content-type': '${s.file.contentType}'`);
  const init = [`  method: '${s.method}',`, '  headers: {', ...headers.map((h) => `    ${h},`), '  },'];
  if (s.body !== undefined) init.push(`  body: JSON.stringify(${js(s.body, '  ')}),`);
  if (s.file) init.push(`  body: readFileSync('${s.file.name}'),`);
  lines.push(`const res = await fetch(${url}, {`, ...init, '});');
  lines.push('if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);');
  if (s.answer === 'json') lines.push('console.log(JSON.stringify(await res.json(), null, 2));');
  else if (s.answer === 'text') lines.push('console.log(await res.text());');
  else if (s.answer === 'bytes') lines.push(`writeFileSync('${binaryName(s)}', Buffer.from(await res.arrayBuffer()));`, "console.log(res.headers.get('content-type'));");
  return lines.join('\n') + '\n';
}
