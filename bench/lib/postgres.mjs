// A fresh database on the PostgreSQL server a bench was given (--url), for one run's tables.
import pg from 'pg';

/** Creates `bench_<tag>_<pid>_<ms>` on the server of `serverUrl`; resolves its URL. */
export async function freshBenchDatabase(serverUrl, tag = 'run') {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const name = `bench_${tag}_${process.pid}_${Date.now()}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
