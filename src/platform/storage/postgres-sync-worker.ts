import { workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';
import { nameThread } from '../threads/index.js';

/**
 * The thread that holds the control store's PostgreSQL connection for PostgresControlDb: it runs
 * one statement a message and signals the waiting main thread through shared memory
 * (postgres-sync.ts). One connection: the main thread sends one statement at a time, so a
 * transaction's statements always go to the connection that began it.
 */
interface Input {
  url: string;
  port: MessagePort;
  signal: SharedArrayBuffer;
  connectTimeoutMs: number;
}

export interface SyncRequest {
  seq: number;
  text: string;
  values: readonly unknown[];
  rowMode: 'array' | undefined;
  /** A statement of an open transaction (or its COMMIT or ROLLBACK): never sent on a new connection. */
  inTransaction: boolean;
}

export type SyncReply =
  | { seq: number; rows: unknown[]; rowCount: number }
  | { seq: number; error: { message: string; code?: string; constraint?: string; connection: boolean } };

const { url, port, signal, connectTimeoutMs } = workerData as Input;
nameThread('control-store');
const flag = new Int32Array(signal);

// Results in the shapes better-sqlite3 gives: integers and sums as numbers (timestamps in ms and
// counts stay far below 2^53), truth values as 1 and 0.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    if (oid === 16) return (value: string) => (value === 't' ? 1 : 0);
    return pg.types.getTypeParser(oid, format);
  },
};

let current: pg.Client | undefined;
let broken = false;

/**
 * The connection, made again after a fault, but never inside a transaction: the transaction went
 * with the old connection, and what follows must fail rather than run outside it.
 */
async function connection(inTransaction: boolean): Promise<pg.Client> {
  if (current && !broken) return current;
  if (current && inTransaction) throw new Error('the connection was lost during a transaction');
  await current?.end().catch(() => undefined);
  broken = false;
  const next = new pg.Client({ connectionString: url, types, connectionTimeoutMillis: connectTimeoutMs });
  next.on('error', () => (broken = true));
  await next.connect();
  current = next;
  return next;
}

/** Errors of the connection rather than of the statement: the class 08 codes, a server shutting down, or no code. */
function isConnectionError(error: { code?: string }): boolean {
  const code = error.code;
  return code === undefined || code.startsWith('08') || code.startsWith('57P') || /^E[A-Z]+$/.test(code);
}

port.on('message', (request: SyncRequest) => {
  void (async (): Promise<SyncReply> => {
    let client: pg.Client;
    try {
      client = await connection(request.inTransaction);
    } catch (caught) {
      // No connection (refused, unknown database, bad password, lost mid-transaction): the store is unavailable.
      return { seq: request.seq, error: { message: (caught as Error).message, connection: true } };
    }
    try {
      const result = await client.query({
        text: request.text,
        values: request.values as unknown[],
        ...(request.rowMode ? { rowMode: request.rowMode } : {}),
      });
      return { seq: request.seq, rows: result.rows, rowCount: result.rowCount ?? 0 };
    } catch (caught) {
      const error = caught as { message: string; code?: string; constraint?: string };
      const connectionFault = isConnectionError(error);
      if (connectionFault) broken = true;
      return {
        seq: request.seq,
        error: { message: error.message, code: error.code, constraint: error.constraint, connection: connectionFault },
      };
    }
  })().then((reply) => {
    port.postMessage(reply);
    Atomics.store(flag, 0, request.seq);
    Atomics.notify(flag, 0);
  });
});
