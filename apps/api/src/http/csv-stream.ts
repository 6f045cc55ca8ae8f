import { Readable, finished } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers a CSV export from its chunks (header first), as a download. The first chunk is read
 * before the answer starts, so a database failure there is still an error in the usual shape;
 * later failures can only cut the stream short. The generator is closed whatever the end
 * (finished, failed, or the client gone), so a cursor and its connection are always given back.
 */
export async function sendCsv(req: FastifyRequest, reply: FastifyReply, chunks: AsyncGenerator<string | Buffer>, filename: string, what: string) {
  const first = await chunks.next();
  async function* csv(): AsyncGenerator<string | Buffer> {
    if (first.done) return;
    yield first.value;
    yield* chunks;
  }
  const body = Readable.from(csv(), { objectMode: false });
  finished(body, (err) => {
    void chunks.return(undefined).catch(() => {});
    if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') req.log.warn({ err: { message: err.message, code: err.code } }, `${what} export stopped`);
  });
  return reply
    .header('cache-control', 'no-store')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .type('text/csv; charset=utf-8; header=present')
    .send(body);
}
