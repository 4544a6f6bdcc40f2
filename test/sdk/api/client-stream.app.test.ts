import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type PublishProgressEvent } from '../../../src/sdk/api/index.js';

// publishWithProgress against a loopback server that answers as a daemon would (the streamed
// route itself is tested in test/output/publish/publish-stream.app.test.ts): each way a stream can end.
let server: Server;
let url: string;
let answer: (res: ServerResponse) => void = () => {};
const accepts: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    accepts.push(req.headers.accept ?? '');
    req.resume().on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const client = () => createApiClient({ url, credential: { apiKey: 'nk_live_x' }, retries: 0 });
const stream = (res: ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': 'req_1' });
  res.end(body);
};
const progress = { stage: 'compile', done: 1, total: 10, pass: 'sources', records: 3 };
const DATA = { versionUlid: '01J00000000000000000000000' };

describe('publishWithProgress', () => {
  it('asks for the stream, hands each progress event over and resolves with the result', async () => {
    answer = (res) =>
      stream(
        res,
        `: keep-alive\n\nevent: progress\ndata: ${JSON.stringify(progress)}\n\nevent: progress\ndata: {"unknown":true}\n\n` +
          `event: result\ndata: ${JSON.stringify({ ok: true, data: DATA, meta: { requestId: 'req_1' } })}\n\n`,
      );
    const seen: PublishProgressEvent[] = [];
    await expect(client().publish.publishWithProgress('web_1', {}, (e) => seen.push(e))).resolves.toEqual(DATA);
    expect(seen).toEqual([progress]);
    expect(accepts.at(-1)).toBe('text/event-stream, application/json;q=0.5');
  });

  it('rejects with the error event as the plain answer would: its code, status and request id', async () => {
    answer = (res) =>
      stream(
        res,
        `event: progress\ndata: ${JSON.stringify(progress)}\n\nevent: error\ndata: ${JSON.stringify({
          ok: false,
          error: { code: 'publish.drop_gate', message: 'too few records', details: { records: 2 }, retryable: false },
          meta: { requestId: 'req_1', status: 409 },
        })}\n\n`,
      );
    await expect(client().publish.publishWithProgress('web_1')).rejects.toMatchObject({
      code: 'publish.drop_gate',
      status: 409,
      requestId: 'req_1',
      details: { records: 2 },
    });
  });

  it('reads a plain JSON answer (a daemon without the stream), and fails a stream cut before its result', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, data: DATA, meta: { requestId: 'req_2' } }));
    };
    await expect(client().publish.publishWithProgress('web_1')).resolves.toEqual(DATA);
    answer = (res) => stream(res, `event: progress\ndata: ${JSON.stringify(progress)}\n\n`);
    const cut = await client()
      .publish.publishWithProgress('web_1')
      .catch((error: unknown) => error);
    expect(cut).toMatchObject({ code: 'network.error', status: 0, requestId: 'req_1' });
    expect((cut as Error).message).toMatch(/event stream that broke off before its result/);
  });
});
