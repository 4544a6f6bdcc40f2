import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OpenAI-compatible POST /v1/embeddings for tests, no internet. Deterministic vectors: a
 * text's words, each mapped through SYNONYMS to a concept, summed as one pseudo-random ±1 vector
 * per concept (sha256 of the concept gives the 256 signs). So "cheap flights" and "inexpensive
 * airfare" land close only because the table says so.
 */
export const DIMENSIONS = 256;

const SYNONYMS: Record<string, string> = {
  cheap: 'cheap',
  inexpensive: 'cheap',
  affordable: 'cheap',
  budget: 'cheap',
  flight: 'flight',
  flights: 'flight',
  airfare: 'flight',
  airfares: 'flight',
  plane: 'flight',
};
const STOPWORDS = new Set(['a', 'an', 'the', 'to', 'of', 'with', 'our', 'your', 'and', 'in', 'for', 'every', 'near']);

export function embed(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOPWORDS.has(word)) continue;
    const bits = createHash('sha256')
      .update(SYNONYMS[word] ?? word)
      .digest();
    for (let i = 0; i < DIMENSIONS; i++) vector[i]! += (bits[i >> 3]! >> (i & 7)) & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

export interface EmbeddingsServer {
  url: string;
  /** up: answers; error: 500; closed: the connection is cut before any answer. */
  mode: 'up' | 'error' | 'closed';
  /** Every input text received while up, in order. */
  readonly inputs: string[];
  /** Requests received in any mode. */
  requests: number;
  close(): Promise<void>;
}

export async function startEmbeddingsServer(): Promise<EmbeddingsServer> {
  let server: Server;
  const state: EmbeddingsServer = {
    url: '',
    mode: 'up',
    inputs: [],
    requests: 0,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      state.requests++;
      if (state.mode === 'closed') return void request.socket.destroy();
      if (state.mode === 'error') {
        response.writeHead(500, { 'content-type': 'application/json' });
        return void response.end('{"error":{"message":"model overloaded"}}');
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string[] };
      state.inputs.push(...body.input);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })),
          usage: { prompt_tokens: body.input.length, total_tokens: body.input.length },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/embeddings`;
  return state;
}
