import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An integrator's page on its own origin (a second local HTTP server): it loads the integrator
 * script from the journey origin, mounts the journey with a session url its "server side"
 * creates (`/new-session`, answered by `newSessionUrl`), and records every event and every raw
 * message the window receives, for the test to read.
 */
export interface EmbeddingPage {
  origin: string;
  server: Server;
  close(): Promise<void>;
}

export async function startEmbeddingPage(
  port: number,
  journeyUrl: string,
  newSessionUrl: () => Promise<string>,
  opts: { directFrame?: () => Promise<string> } = {},
): Promise<EmbeddingPage> {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Shop checkout</title><style>body{font:16px system-ui;margin:0;padding:8px}#journey{max-width:480px}</style></head>
<body><h2>Shop: verify your identity</h2><div id="journey"></div><div id="direct"></div>
<script>
window.events = []; window.raw = []; window.renewals = 0;
window.addEventListener('message', (e) => window.raw.push({ origin: e.origin, data: e.data }));
</script>
<script src="${journeyUrl}/embed.js"></script>
<script>
(async () => {
  const url = await (await fetch('/new-session')).text();
  window.mounted = IdvJourney.mount({
    container: document.getElementById('journey'),
    url,
    title: 'Identity verification',
    onEvent: (e) => window.events.push(e),
    renewUrl: async () => { window.renewals++; return (await fetch('/new-session')).text(); },
  });
  if (location.search.includes('direct')) {
    const direct = document.createElement('iframe');
    direct.id = 'direct-frame';
    direct.src = await (await fetch('/direct-frame')).text();
    document.getElementById('direct').append(direct);
  }
})();
</script></body></html>`;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (path === '/') return reply(200, 'text/html; charset=utf-8', html);
    if (path === '/new-session') {
      return void newSessionUrl().then(
        (url) => reply(200, 'text/plain', url),
        (err) => reply(500, 'text/plain', String(err)),
      );
    }
    if (path === '/direct-frame' && opts.directFrame) {
      return void opts.directFrame().then((url) => reply(200, 'text/plain', url));
    }
    return reply(404, 'text/plain', 'not found');
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const actual = (server.address() as AddressInfo).port;
  return {
    origin: `http://localhost:${actual}`,
    server,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
