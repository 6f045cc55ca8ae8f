/**
 * The baseline of bench:console, as a process of its own (like the console server): two plain
 * static pages that do the least a console must do, and a bare pass-through to the service.
 *
 * - `/queue.html` fetches the first page of the queue (GET /v1/reviews?limit=20, as the console's
 *   queue does) and writes one row into the DOM.
 * - `/case.html?task=<id>` fetches GET /v1/reviews/{task}/case and shows the document sides
 *   (`<img>` of GET /v1/reviews/{task}/pieces/{piece}).
 * - `/v1/...` (GET only) goes to the service with the console credential and the operator header.
 *   A page cannot send them to the service itself: the service answers no CORS for console routes,
 *   and an `<img>` cannot carry an Authorization header. The pass-through does nothing else (no
 *   session, no allow-list), so that the difference with the console is the console's own work.
 *
 * Environment: PORT, API_BASE_URL, BASELINE_API_KEY (a console credential), BASELINE_OPERATOR_ID.
 * Loopback only; a benchmark tool, never deployed.
 */
import { Agent, createServer, request } from 'node:http';

const port = Number(process.env.PORT);
const api = new URL(process.env.API_BASE_URL!);
const credential = process.env.BASELINE_API_KEY!;
const operator = process.env.BASELINE_OPERATOR_ID!;
const agent = new Agent({ keepAlive: true });

const page = (title: string, script: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title></head>
<body>
<main><table><tbody></tbody></table></main>
<script>
${script}
</script>
</body>
</html>
`;

const QUEUE = page(
  'Baseline queue',
  `fetch('/v1/reviews?limit=20').then((r) => r.json()).then((page) => {
  const task = page.data[0];
  const row = document.createElement('tr');
  for (const text of [task.id, String(task.risk_score), task.due_at, task.status, task.country]) {
    const cell = document.createElement('td');
    cell.textContent = text;
    row.append(cell);
  }
  document.querySelector('tbody').append(row);
});`,
);

const CASE = page(
  'Baseline case',
  `const task = new URLSearchParams(location.search).get('task');
fetch('/v1/reviews/' + encodeURIComponent(task) + '/case').then((r) => r.json()).then((data) => {
  for (const piece of data.case.pieces) {
    if (!piece.kind.startsWith('document_') || !piece.available) continue;
    const figure = document.createElement('figure');
    figure.className = 'doc-side';
    const img = document.createElement('img');
    img.alt = piece.kind;
    img.src = '/v1/reviews/' + encodeURIComponent(task) + '/pieces/' + encodeURIComponent(piece.id);
    figure.append(img);
    document.querySelector('main').append(figure);
  }
});`,
);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://baseline');
  if (req.method !== 'GET') return void res.writeHead(405).end();
  if (url.pathname === '/queue.html' || url.pathname === '/case.html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    return void res.end(url.pathname === '/queue.html' ? QUEUE : CASE);
  }
  if (!url.pathname.startsWith('/v1/')) return void res.writeHead(404).end();
  const upstream = request(
    { agent, host: api.hostname, port: api.port, method: 'GET', path: url.pathname + url.search, headers: { authorization: `Bearer ${credential}`, 'x-service-operator': operator, accept: req.headers.accept ?? '*/*' } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  upstream.end();
});

server.listen(port, '127.0.0.1');
const close = () => server.close(() => process.exit(0));
process.on('SIGTERM', close);
process.on('SIGINT', close);
