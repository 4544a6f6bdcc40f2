import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

/**
 * Real servers on loopback for the fetcher and verification tests: a DNS server (dns2) whose
 * zone a test sets per name and record type, and plain HTTP servers.
 */

/** What the DNS server answers for one name and type: records, an error code, or silence (the client times out). */
export type DnsAnswer = { A?: string[]; AAAA?: string[]; TXT?: string[][] } | 'NXDOMAIN' | 'SERVFAIL' | 'SILENT';

export interface LoopbackDns {
  /** `127.0.0.1:<port>`, for the dnsServers setting or createHostResolver({servers}). */
  readonly server: string;
  /**
   * Sets what `name` answers. A list answers its entries one query after another per record
   * type (the last one repeats): a rebinding name answers a different address the second time.
   */
  set(name: string, answer: DnsAnswer | DnsAnswer[]): void;
  /** How many queries of `type` (A, AAAA, TXT) asked for `name`. */
  queries(name: string, type: string): number;
  close(): Promise<void>;
}

const TYPES: Record<number, 'A' | 'AAAA' | 'TXT'> = {
  [dns2.Packet.TYPE.A]: 'A',
  [dns2.Packet.TYPE.AAAA]: 'AAAA',
  [dns2.Packet.TYPE.TXT]: 'TXT',
};

export async function startLoopbackDns(): Promise<LoopbackDns> {
  const zone = new Map<string, DnsAnswer[]>();
  const asked = new Map<string, number>();
  const server = dns2.createUDPServer((request, send) => {
    const response = dns2.Packet.createResponseFromRequest(request);
    const question = request.questions[0];
    if (!question) return void send(response);
    const name = question.name.toLowerCase();
    const type = TYPES[question.type] ?? 'OTHER';
    const key = `${name} ${type}`;
    const count = asked.get(key) ?? 0;
    asked.set(key, count + 1);
    const answers = zone.get(name);
    const answer = answers ? answers[Math.min(count, answers.length - 1)]! : 'NXDOMAIN';
    if (answer === 'SILENT') return;
    if (answer === 'NXDOMAIN') response.header.rcode = 3;
    else if (answer === 'SERVFAIL') response.header.rcode = 2;
    else if (type === 'A' || type === 'AAAA')
      for (const address of answer[type] ?? [])
        response.answers.push({
          name: question.name,
          type: question.type,
          class: dns2.Packet.CLASS.IN,
          ttl: 1,
          address,
        } as never);
    else if (type === 'TXT')
      for (const data of answer.TXT ?? [])
        response.answers.push({
          name: question.name,
          type: question.type,
          class: dns2.Packet.CLASS.IN,
          ttl: 1,
          data,
        } as never);
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    set: (name, answer) => void zone.set(name.toLowerCase(), Array.isArray(answer) ? answer : [answer]),
    queries: (name, type) => asked.get(`${name.toLowerCase()} ${type}`) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface LoopbackHttp {
  readonly port: number;
  /** `http://<host>:<port>`. */
  readonly origin: string;
  /** Requests received, as `METHOD path`. */
  readonly requests: string[];
  close(): Promise<void>;
}

export type HttpHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** An HTTP server on `host` (default 127.0.0.1), on `port` (default any free one). */
export async function startLoopbackHttp(
  handler: HttpHandler,
  options: { host?: string; port?: number } = {},
): Promise<LoopbackHttp> {
  const requests: string[] = [];
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://${host}:${port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Two servers on one port: one on 127.0.0.2 (a test allows it as if public) and one on 127.0.0.1 (loopback, refused). */
export async function startServerPair(
  outside: HttpHandler,
  inside: HttpHandler,
): Promise<{ outside: LoopbackHttp; inside: LoopbackHttp; close(): Promise<void> }> {
  for (let attempt = 0; ; attempt++) {
    const first = await startLoopbackHttp(outside, { host: '127.0.0.2' });
    try {
      const second = await startLoopbackHttp(inside, { host: '127.0.0.1', port: first.port });
      return {
        outside: first,
        inside: second,
        close: async () => void (await Promise.all([first.close(), second.close()])),
      };
    } catch (error) {
      await first.close();
      if (attempt >= 5) throw error;
    }
  }
}
