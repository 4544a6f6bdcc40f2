import { describe, expect, it } from 'vitest';
import {
  confirmsDomain,
  failureAdvice,
  proofFields,
  proofWhere,
  pushCommand,
  timeText,
} from '../../src/console/website-text.js';

/** The words of the website pages (src/console/website-text.ts), read from the API's answers. */
describe('confirmsDomain', () => {
  it('accepts the domain whatever its case and surrounding spaces, as DELETE /v1/websites/:id does', () => {
    expect(confirmsDomain('shop.example', 'shop.example')).toBe(true);
    expect(confirmsDomain('  SHOP.Example ', 'shop.example')).toBe(true);
  });
  it('refuses anything else', () => {
    expect(confirmsDomain('', 'shop.example')).toBe(false);
    expect(confirmsDomain('shop.exampl', 'shop.example')).toBe(false);
    expect(confirmsDomain('www.shop.example', 'shop.example')).toBe(false);
  });
});

describe('timeText', () => {
  it('shows an API time in UTC to the minute, and says never for none', () => {
    expect(timeText('2026-03-02T10:00:59.999Z')).toBe('2026-03-02 10:00 UTC');
    expect(timeText(null)).toBe('never');
    expect(timeText(undefined, 'not yet')).toBe('not yet');
    expect(timeText('yesterday')).toBe('yesterday');
  });
});

describe('proofFields and proofWhere', () => {
  it('gives the DNS record as type, name and value', () => {
    const dns = { type: 'TXT' as const, name: '_nodectl-verify.shop.example', value: 'nodectl-verify=abc' };
    expect(proofFields(dns)).toEqual([
      { label: 'Record type', value: 'TXT' },
      { label: 'Name', value: '_nodectl-verify.shop.example' },
      { label: 'Value', value: 'nodectl-verify=abc' },
    ]);
    expect(proofWhere(dns)).toContain('TXT record');
  });
  it('gives the meta tag with its page, the file with its address, the heartbeat field with its value', () => {
    const meta = {
      url: 'https://shop.example/',
      tag: '<meta name="nodectl-verify" content="abc">',
      where: 'in <head>',
    };
    expect(proofFields(meta).map((f) => f.value)).toEqual(['https://shop.example/', meta.tag]);
    expect(proofWhere(meta)).toContain('https://shop.example/');
    const file = {
      url: 'https://shop.example/.well-known/nodectl-verify.txt',
      content: 'nodectl-verify=abc',
      contentType: 'text/plain' as const,
    };
    expect(proofFields(file).map((f) => f.label)).toEqual(['File address', 'File content']);
    const plugin = { heartbeatField: 'verification_token' as const, value: 'abc', where: 'POST /v1/ingest/heartbeat' };
    expect(proofFields(plugin)).toEqual([
      { label: 'Heartbeat field', value: 'verification_token' },
      { label: 'Value', value: 'abc' },
    ]);
  });
});

describe('failureAdvice', () => {
  it('reads the reasons of a dns_txt check', () => {
    const missing = 'dns_txt failed: TXT _nodectl-verify.shop.example: the name does not exist (NXDOMAIN)';
    expect(failureAdvice(null, missing)).toMatch(/^The TXT record is not there yet/);
    expect(failureAdvice('dns_txt', 'dns_txt failed: TXT _nodectl-verify.shop.example: no TXT record')).toMatch(
      /not there yet/,
    );
    expect(failureAdvice(null, 'dns_txt failed: TXT _n.shop.example: the DNS query timed out')).toMatch(
      /DNS server did not answer/,
    );
    expect(failureAdvice(null, 'dns_txt failed: TXT _n.shop.example: "google-site-verification=x"')).toMatch(
      /none holds the value/,
    );
  });
  it('reads the reasons of the fetched methods: a status, an unreachable site, a missing tag or line', () => {
    expect(failureAdvice('meta_tag', 'meta_tag failed: GET https://shop.example/: HTTP 404')).toContain('HTTP 404');
    expect(
      failureAdvice(null, 'well_known_file failed: GET https://shop.example/.well-known/x: blocked: private address'),
    ).toMatch(/could not read your website/);
    expect(
      failureAdvice(null, 'meta_tag failed: GET https://shop.example/ (1.2.3.4): HTTP 200; no nodectl-verify meta tag'),
    ).toMatch(/tag was not in it/);
    expect(
      failureAdvice(null, 'well_known_file failed: GET https://shop.example/x (1.2.3.4): HTTP 200; file starts ""'),
    ).toMatch(/does not hold the line/);
  });
  it('reads a plugin reason, and gives general advice for wording it does not know', () => {
    expect(failureAdvice(null, 'plugin failed: no signed heartbeat has carried the token yet')).toMatch(/connector/);
    expect(failureAdvice(null, 'something new')).toMatch(/^Place the proof exactly as shown/);
  });
});

describe('pushCommand', () => {
  it('is one shell line with the token in the environment, as docs/ingest.md and the README use it', () => {
    expect(pushCommand('conn_1.secret', 'web_1', 'shop.example', 'http://127.0.0.1:8787')).toBe(
      "NODECTL_CONNECTOR_TOKEN='conn_1.secret' nodectl push ./content --url http://127.0.0.1:8787 --website web_1 --domain shop.example",
    );
  });
});
