import { statSync } from 'node:fs';
import { IngestClient, IngestError, type BatchResult, type IngestItemInput } from '../../sdk/client/index.js';
import { MAX_BATCH_ITEMS } from '../../platform/contract/index.js';
import { mapFolder, readJsonlItems, type MapProblem } from './map-files.js';
import { CliError, EXIT } from '../errors.js';
import { emptySummary, type PushProgress, type PushSummary } from './progress.js';

export interface PushOptions {
  /** A folder of .md/.html/.json files, or a .jsonl file of items. */
  source: string;
  /** API origin of the daemon. */
  url: string;
  /** Where the URL came from (`--url`, `NODECTL_URL` or `the default`), for the message when it cannot be reached. */
  urlSource?: string;
  token: string;
  websiteId: string;
  domain: string;
  /** Origin for derived item urls; default https://<domain>. */
  baseUrl?: string;
  progress: PushProgress;
}

export interface PushReport {
  summary: PushSummary;
  problems: MapProblem[];
  /** Per-item errors the server returned: id, code, message. */
  itemErrors: Array<{ id: string | null; code: string; message: string }>;
}

export function createPushClient(options: Pick<PushOptions, 'url' | 'token' | 'websiteId' | 'domain'>): IngestClient {
  return new IngestClient({
    baseUrl: options.url,
    token: options.token,
    websiteId: options.websiteId,
    siteDomain: options.domain,
    connectorType: 'nodectl-push',
  });
}

/** Reads the source into items: a folder is mapped file by file, a .jsonl read line by line. */
export function readSourceItems(source: string, baseUrl: string): { items: IngestItemInput[]; problems: MapProblem[] } {
  return statSync(source).isDirectory() ? mapFolder(source, { baseUrl }) : readJsonlItems(source);
}

/** Adds one batch answer to the summary and collects its item errors. */
export function addBatch(report: PushReport, result: BatchResult): void {
  const s = report.summary;
  s.received += result.received;
  s.accepted += result.accepted;
  s.skipped += result.skipped;
  s.errored += result.errored;
  for (const r of result.results)
    if (r.status === 'error')
      report.itemErrors.push({ id: r.id, code: r.error?.code ?? 'unknown', message: r.error?.message ?? '' });
}

/**
 * Asks the daemon's GET /readyz before anything is read, so a daemon that is down (or not a
 * nodectl daemon) fails the push at once, naming the URL and where it came from.
 */
export async function checkDaemon(url: string, urlSource = '--url'): Promise<void> {
  const { request } = (await import('undici')).default; // CommonJS: its exports are import()'s default
  const fix = `start it with nodectl serve, or point ${urlSource === 'NODECTL_URL' ? 'NODECTL_URL' : '--url (or NODECTL_URL)'} at a running daemon`;
  let status: number;
  let body: string;
  try {
    const res = await request(new URL('/readyz', url), { method: 'GET', headersTimeout: 10_000, bodyTimeout: 10_000 });
    status = res.statusCode;
    body = await res.body.text();
  } catch (error) {
    const cause = (error as { code?: string }).code ?? (error as Error).message;
    throw new CliError(
      `cannot reach the daemon at ${url} (${urlSource}): ${cause}; ${fix}`,
      EXIT.failure,
      'network.error',
      {
        retryable: true,
      },
    );
  }
  if (status !== 200) {
    let envelope: { error?: { code?: string; message?: string } } | undefined;
    try {
      envelope = JSON.parse(body) as typeof envelope;
    } catch {
      envelope = undefined;
    }
    if (envelope?.error?.code)
      throw new CliError(
        `the daemon at ${url} is not ready: ${envelope.error.message ?? status}`,
        EXIT.failure,
        envelope.error.code,
        { retryable: true },
      );
    throw new CliError(
      `${url} (${urlSource}) answered GET /readyz with HTTP ${status}, not a nodectl daemon; ${fix}`,
      EXIT.failure,
      'response.invalid',
    );
  }
}

/**
 * Pushes items in signed batches of MAX_BATCH_ITEMS, reporting progress. The client retries what
 * may pass on a second try; a request that still fails stops the push: the items after it are
 * counted as not sent (summary.notSent, with the reason), never as pushed.
 */
export async function pushItems(
  client: IngestClient,
  items: readonly IngestItemInput[],
  report: PushReport,
  progress: PushProgress,
): Promise<void> {
  const total = items.length;
  const s = report.summary;
  s.total += total;
  const startAcknowledged = s.received;
  const done = () => s.received - startAcknowledged;
  progress.update(0, total, s);
  for (let i = 0; i < total; i += MAX_BATCH_ITEMS) {
    const chunk = items.slice(i, i + MAX_BATCH_ITEMS);
    try {
      addBatch(report, await client.sendBatch(chunk));
    } catch (error) {
      s.failedRequests++;
      const e = error as IngestError;
      const reason = `${e.code ? `[${e.code}] ` : ''}${e.message}`;
      s.notSent += total - i;
      s.notSentReason = reason;
      progress.note(`request failed: ${reason}; ${total - i} item(s) not sent`);
      return;
    }
    progress.update(done(), total, s);
  }
}

/** One push of a whole folder or .jsonl file; the daemon is asked first, then the files are read. */
export async function runPush(options: PushOptions): Promise<PushReport> {
  const client = createPushClient(options);
  await checkDaemon(options.url, options.urlSource);
  const baseUrl = options.baseUrl ?? `https://${options.domain}`;
  const { items, problems } = readSourceItems(options.source, baseUrl);
  const report: PushReport = { summary: emptySummary(), problems, itemErrors: [] };
  for (const p of problems) options.progress.note(`skipped file ${p.file}: ${p.message}`);
  await pushItems(client, items, report, options.progress);
  return report;
}
