import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Date.now() when the request had fully arrived. */
  at: number;
}

/** What the receiver does with a request: the answer, or a delay before it. */
export type Behaviour = (req: ReceivedRequest, index: number) => { status: number; delayMs?: number; headers?: Record<string, string> };

/** A real HTTP receiver on 127.0.0.1 recording every request it gets, answering as told. */
export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  behave(b: Behaviour): void;
  /** Waits until `predicate(received)` holds, or fails after timeoutMs. */
  waitFor(predicate: (received: ReceivedRequest[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(initial: Behaviour = () => ({ status: 200 })): Promise<Receiver> {
  let behaviour = initial;
  const received: ReceivedRequest[] = [];
  const pending = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      const index = received.push(r) - 1;
      const answer = behaviour(r, index);
      const send = () => {
        pending.delete(res);
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end('ok');
      };
      pending.add(res);
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    behave: (b) => {
      behaviour = b;
    },
    waitFor: async (predicate, timeoutMs = 10_000, what = 'the expected requests') => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`receiver: timed out after ${timeoutMs} ms waiting for ${what} (got ${received.length} requests)`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: async () => {
      for (const res of pending) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
