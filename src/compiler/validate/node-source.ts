import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where a node is read from: a directory or a base URL ({node_base_url}/{domain}/ or versions/{ulid}/). */
export interface NodeSource {
  readonly location: string;
  /** The file's bytes as a stream of chunks, or null when it does not exist. */
  open(path: string): Promise<AsyncIterable<Uint8Array> | null>;
  /** Every file name present, when the source can list them (a directory); null otherwise. */
  list(): string[] | null;
}

export function openNodeSource(dirOrUrl: string): NodeSource {
  if (/^https?:\/\//i.test(dirOrUrl)) return urlSource(dirOrUrl.endsWith('/') ? dirOrUrl : dirOrUrl + '/');
  return directorySource(dirOrUrl);
}

function directorySource(dir: string): NodeSource {
  return {
    location: dir,
    async open(path) {
      const file = join(dir, path);
      if (!existsSync(file) || !statSync(file).isFile()) return null;
      return createReadStream(file, { highWaterMark: 1 << 20 });
    },
    list() {
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((name) => statSync(join(dir, name)).isFile())
            .sort()
        : [];
    },
  };
}

function urlSource(base: string): NodeSource {
  return {
    location: base,
    async open(path) {
      const response = await fetch(new URL(path, base), { redirect: 'follow' });
      if (response.status === 404 || response.status === 410) return null;
      if (!response.ok) throw new Error(`GET ${new URL(path, base).href} answered ${response.status}`);
      if (response.body === null) return (async function* () {})();
      return response.body as unknown as AsyncIterable<Uint8Array>;
    },
    list: () => null,
  };
}
