import { createHmac, randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { deriveSigningKey, formatSecret, hashSigningKey, parseSecret } from '../../../src/control/webhooks/secret.js';
import { computeSignature, signWebhook } from '../../../src/control/webhooks/signer.js';

/** Verifies with the official standardwebhooks package, its clock set to the signing time. */
function verify(secret: string, headers: Record<string, string>, body: string, atSeconds: number): unknown {
  const spy = vi.spyOn(Date, 'now').mockReturnValue(atSeconds * 1000);
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    spy.mockRestore();
  }
}

describe('webhook signatures (Standard Webhooks)', () => {
  it('the signer passes the Standard Webhooks reference vector', () => {
    const key = parseSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(computeSignature(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('a signed request verifies with the standardwebhooks package; a changed body, id or timestamp does not', () => {
    const key = randomBytes(32);
    const secret = formatSecret(key);
    const body = JSON.stringify({ id: 'evt_1', type: 'node.published', data: { node_version: 'x' } });
    const headers = signWebhook([key], 'evt_1', 1_772_445_600, body);
    expect(verify(secret, { ...headers }, body, 1_772_445_600)).toEqual(JSON.parse(body));
    expect(() => verify(secret, { ...headers }, body.replace('x', 'y'), 1_772_445_600)).toThrow(
      WebhookVerificationError,
    );
    expect(() => verify(secret, { ...headers, 'webhook-id': 'evt_2' }, body, 1_772_445_600)).toThrow(
      WebhookVerificationError,
    );
    expect(() => verify(secret, { ...headers, 'webhook-timestamp': '1772445601' }, body, 1_772_445_600)).toThrow(
      WebhookVerificationError,
    );
  });

  it('during a rotation the header carries two space-separated signatures and the package verifies with either secret, not a third', () => {
    const current = randomBytes(32);
    const previous = randomBytes(32);
    const body = '{"id":"evt_9"}';
    const headers = signWebhook([current, previous], 'evt_9', 1_772_445_600, body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]{44} v1,[A-Za-z0-9+/=]{44}$/);
    expect(verify(formatSecret(current), { ...headers }, body, 1_772_445_600)).toEqual({ id: 'evt_9' });
    expect(verify(formatSecret(previous), { ...headers }, body, 1_772_445_600)).toEqual({ id: 'evt_9' });
    expect(() => verify(formatSecret(randomBytes(32)), { ...headers }, body, 1_772_445_600)).toThrow(
      WebhookVerificationError,
    );
  });

  it('the key is HMAC-SHA256(master key, subscription id + ":" + secret version), shown as whsec_<base64 key>; the database form is its SHA-256', () => {
    const master = randomBytes(32);
    const key = deriveSigningKey(master, 'whk_01ABC', 3);
    expect(key.equals(createHmac('sha256', master).update('whk_01ABC:3').digest())).toBe(true);
    expect(deriveSigningKey(master, 'whk_01ABC', 4).equals(key)).toBe(false);
    expect(deriveSigningKey(randomBytes(32), 'whk_01ABC', 3).equals(key)).toBe(false);
    expect(formatSecret(key)).toBe(`whsec_${key.toString('base64')}`);
    expect(parseSecret(formatSecret(key)).equals(key)).toBe(true);
    expect(hashSigningKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(() => deriveSigningKey(randomBytes(16), 'whk_01ABC', 1)).toThrow(/damaged/);
  });
});
