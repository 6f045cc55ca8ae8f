import { createServer, type Server } from 'node:http';
import { errorIndex, errorPage, homePage } from './pages.ts';

/** The published documentation: error pages (the targets of every error's doc_url) and links to the contract. */
export function createDocsServer(apiBaseUrl: string): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '') || '/';
    const send = (status: number, html: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff' });
      res.end(req.method === 'HEAD' ? undefined : html);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'Method not allowed');
    if (path === '/') return send(200, homePage(apiBaseUrl));
    if (path === '/errors') return send(200, errorIndex());
    const m = /^\/errors\/([a-z_]+)$/.exec(path);
    const page = m ? errorPage(m[1]) : null;
    return page ? send(200, page) : send(404, 'Not found');
  });
}
