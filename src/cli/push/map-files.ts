import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { computeItemChecksum } from '../../platform/contract/checksum.js';
import type { IngestItemInput, SourceType } from '../../sdk/client/types.js';

export const PUSHABLE_EXTENSIONS = ['.md', '.markdown', '.html', '.htm', '.json'] as const;

export interface MapOptions {
  /** Origin urls are derived from, e.g. https://example.com. */
  baseUrl: string;
  /** Item type when a file does not say (front matter `type`). Default page. */
  defaultType?: SourceType;
}

/** A file that could not become an item, and why. */
export interface MapProblem {
  file: string;
  message: string;
}

export function isPushable(file: string): boolean {
  return (PUSHABLE_EXTENSIONS as readonly string[]).includes(extname(file).toLowerCase());
}

/** Every pushable file under `root`, relative paths with `/`, sorted (never directory order). */
export function listPushableFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (st.isFile() && isPushable(name)) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** The stable item id of a file: its relative path (connector-stable, opaque to the service). */
export function itemIdOf(relPath: string): string {
  return `file:${relPath}`;
}

/** https://example.com + docs/intro.md -> https://example.com/docs/intro; index files map to their folder. */
export function urlOf(baseUrl: string, relPath: string): string {
  let path = relPath.replace(/\.(md|markdown|html?|json)$/i, '');
  if (path === 'index' || path.endsWith('/index')) path = path.slice(0, -'index'.length);
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return new URL(encoded, baseUrl.endsWith('/') ? baseUrl : baseUrl + '/').toString();
}

/** Minimal front matter: `key: value` lines between --- fences (quotes stripped). */
export function splitFrontMatter(source: string): { data: Record<string, string>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(source);
  if (!match) return { data: {}, body: source };
  const data: Record<string, string> = {};
  for (const line of (match[1] ?? '').split(/\r?\n/)) {
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (kv?.[1]) data[kv[1]] = (kv[2] ?? '').trim().replace(/^(['"])(.*)\1$/, '$2');
  }
  return { data, body: source.slice(match[0].length) };
}

function withChecksum(item: Omit<IngestItemInput, 'checksum'>): IngestItemInput {
  const clean = Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined)) as Omit<
    IngestItemInput,
    'checksum'
  >;
  return { ...clean, checksum: computeItemChecksum(clean) };
}

/** Maps one file (Markdown, HTML or JSON) to an IngestItem. */
export function mapFile(root: string, relPath: string, options: MapOptions): IngestItemInput {
  const source = readFileSync(join(root, relPath), 'utf8');
  const ext = extname(relPath).toLowerCase();
  const id = itemIdOf(relPath);
  const type = options.defaultType ?? 'page';
  if (ext === '.md' || ext === '.markdown') {
    const { data, body } = splitFrontMatter(source);
    const heading = /^#\s+(.+)$/m.exec(body)?.[1]?.trim();
    return withChecksum({
      type: (data.type as SourceType | undefined) ?? type,
      id: data.id ?? id,
      url: data.url ?? urlOf(options.baseUrl, relPath),
      title: data.title ?? heading,
      language: data.language ?? data.lang,
      text: body,
      updated_at: data.updated_at,
    });
  }
  if (ext === '.html' || ext === '.htm') {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(source)?.[1]?.trim();
    const language = /<html[^>]*\slang=["']?([A-Za-z0-9-]+)/i.exec(source)?.[1];
    return withChecksum({
      type,
      id,
      url: urlOf(options.baseUrl, relPath),
      title: title || undefined,
      language,
      html: source,
    });
  }
  const parsed = JSON.parse(source) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('a JSON file must hold one object');
  const obj = parsed as Record<string, unknown>;
  return withChecksum({
    type: typeof obj.type === 'string' ? (obj.type as SourceType) : type,
    id: typeof obj.id === 'string' ? obj.id : id,
    url: typeof obj.url === 'string' ? obj.url : urlOf(options.baseUrl, relPath),
    title: typeof obj.title === 'string' ? obj.title : undefined,
    language: typeof obj.language === 'string' ? obj.language : undefined,
    json: obj,
  });
}

/** Reads a .jsonl file of items (one object per line); a missing checksum is computed. */
export function readJsonlItems(file: string): { items: IngestItemInput[]; problems: MapProblem[] } {
  const items: IngestItemInput[] = [];
  const problems: MapProblem[] = [];
  readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        const obj = JSON.parse(line) as IngestItemInput;
        items.push(obj.checksum ? obj : withChecksum(obj));
      } catch (error) {
        problems.push({ file: `${file}:${i + 1}`, message: (error as Error).message });
      }
    });
  return { items, problems };
}

/** Maps every pushable file of a folder; files that fail are reported, not fatal. */
export function mapFolder(
  root: string,
  options: MapOptions,
): { items: IngestItemInput[]; problems: MapProblem[]; files: string[] } {
  const files = listPushableFiles(root);
  const items: IngestItemInput[] = [];
  const problems: MapProblem[] = [];
  for (const file of files) {
    try {
      items.push(mapFile(root, file, options));
    } catch (error) {
      problems.push({ file, message: (error as Error).message });
    }
  }
  return { items, problems, files };
}
