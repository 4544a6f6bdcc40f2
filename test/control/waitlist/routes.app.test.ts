import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, injectJson, type InjectAnswer, type TestApp } from '../../helpers/app.js';

/**
 * POST /v1/waitlist in process (every answer is also checked against the OpenAPI document by the
 * test setup): 202 for a new and a known address alike, 422 naming the field, and the per-address
 * limit counted before the body is validated, so invalid submits spend it too.
 */
describe('POST /v1/waitlist', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ settings: { waitlistRateLimitPerMinute: 3 } });
  }, 60_000);
  afterAll(async () => t?.close());

  const join = (body: unknown, address: string): Promise<InjectAnswer> =>
    injectJson(t.app, {
      method: 'POST',
      url: '/v1/waitlist',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
      remoteAddress: address,
    });
  const rows = () => t.services.controlDb.prepare('SELECT email, source FROM waitlist ORDER BY email').all();

  it('answers 202 {status: accepted} for a new and for a known address, and keeps one lowercased row', async () => {
    const first = await join({ email: 'Reader@Example.com', source: 'landing', consent: true }, '198.51.100.1');
    const again = await join({ email: 'reader@example.com', consent: true }, '198.51.100.1');
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.json.data).toEqual({ status: 'accepted' });
    expect(rows()).toEqual([{ email: 'reader@example.com', source: 'landing' }]);
  });

  it('without consent, with a bad email or an unknown field it is 422 validation.failed naming each field, and nothing is kept', async () => {
    const res = await join({ email: 'not-an-email', consent: false, referrer: 'x' }, '198.51.100.2');
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation.failed');
    expect(res.json.error.message).toBe('The body of POST /v1/waitlist is not valid; see details.fields.');
    const paths = (res.json.error.details.fields as Array<{ path: string }>).map((f) => f.path).sort();
    expect(paths).toEqual(expect.arrayContaining(['consent', 'email']));
    expect(paths.length).toBe(3);
    expect(rows()).toHaveLength(1);
  });

  it('invalid submits count against the per-address limit: after 3 the 4th, even a valid one, is 429 quota.rate_limited', async () => {
    const address = '198.51.100.3';
    const answers = [
      await join({ email: 'a@example.com' }, address),
      await join({ email: 'b@example.com' }, address),
      await join({ email: 'c@example.com', consent: true }, address),
      await join({ email: 'd@example.com', consent: true }, address),
    ];
    expect(answers.map((a) => a.status)).toEqual([422, 422, 202, 429]);
    expect(answers[3]!.json.error.code).toBe('quota.rate_limited');
    expect(answers[3]!.headers['retry-after']).toBeDefined();
  });
});
