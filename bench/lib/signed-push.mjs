// Sends signed batches to a daemon's /v1/ingest/batch as a connector does: the reference
// client's signature headers, a fresh Idempotency-Key each, one undici agent for all.
import { randomUUID } from 'node:crypto';
import { request } from 'undici';

/**
 * @param {object} o
 * @param {{ signRequest: Function, deriveSigningKey: Function, parseConnectorToken: Function }} o.client
 *   the build's reference client (dist/sdk/client)
 * @param {string} o.url  the daemon's base URL
 * @param {string} o.token  the connector token
 * @param {string} o.websiteId
 * @param {import('undici').Dispatcher} o.agent
 * @param {Record<string, string>} [o.headers]  more request headers
 * @returns {(body: Buffer) => Promise<object>}  sends one body; resolves its envelope's data, throws unless ok
 */
export function signedBatchSender({ client, url, token, websiteId, agent, headers = {} }) {
  const signingKey = client.deriveSigningKey(client.parseConnectorToken(token).secret, websiteId);
  return async (body) => {
    const signed = client.signRequest({ token, websiteId, path: '/v1/ingest/batch', body, signingKey });
    const res = await request(`${url}/v1/ingest/batch`, {
      method: 'POST',
      dispatcher: agent,
      body,
      headers: { ...signed, ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    });
    const envelope = await res.body.json();
    if (!envelope.ok) throw new Error(`push answered ${res.statusCode}: ${JSON.stringify(envelope.error)}`);
    return envelope.data;
  };
}
