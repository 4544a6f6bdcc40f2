import { domainToASCII } from 'node:url';
import { HTTP_URL_MAX_LENGTH, HTTP_URL_PATTERN } from '../output/node-format/index.js';
import type { WebsiteInfo } from '../control/records/website-info.js';

/** C0 controls and DEL: not part of any URL (a parser would encode or drop them), and not XML. */
const CONTROL = /[\u0000-\u001f\u007f]/;
const SLOW_CACHE_LIMIT = 10_000;

/**
 * The URL policy of the node files (docs/node-format.md "URLs"): a URL may appear in a node file
 * only when it is an absolute http(s) URL whose host is the website's domain or one of its
 * verified aliases, as ingestion requires of an item's url. A page's canonical_url can name any
 * host; this keeps a foreign one out of sources, sitemap-ai.xml, schema.jsonld and the rest.
 */
export class WebsiteUrls {
  private readonly hosts: Set<string>;
  private readonly label: string;
  /** Matches the common case, a URL that starts with scheme://host/, without parsing it. */
  private readonly fast: RegExp;
  private readonly slow = new Map<string, string | null>();

  constructor(site: Pick<WebsiteInfo, 'domain' | 'aliases'>) {
    const names = [site.domain, ...site.aliases].map((h) => h.toLowerCase().replace(/\.$/, '')).filter((h) => h !== '');
    this.hosts = new Set(names.flatMap((h) => [h, domainToASCII(h)]).filter((h) => h !== ''));
    this.label =
      site.aliases.length === 0
        ? `the website's domain ${names[0]}`
        : `the website's domain ${names[0]} or a verified alias (${names.slice(1).join(', ')})`;
    const alternatives = [...this.hosts]
      .sort()
      .map((h) => h.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
      .join('|');
    this.fast = new RegExp(`^https?://(?:${alternatives})[/?#][^\\s\\u0000-\\u001f\\u007f]*$`);
  }

  /** `url` when a node file may name it, else null. */
  allowed(url: string | null | undefined): string | null {
    if (url === null || url === undefined) return null;
    return this.problem(url) === null ? url : null;
  }

  /** Why `url` may not appear in a node file, or null when it may. */
  problem(url: string): string | null {
    if (url.length <= HTTP_URL_MAX_LENGTH && this.fast.test(url)) return null;
    let verdict = this.slow.get(url);
    if (verdict === undefined) {
      verdict = this.judge(url);
      // Bounded: the cache only saves time, so clearing it never changes a verdict.
      if (this.slow.size >= SLOW_CACHE_LIMIT) this.slow.clear();
      this.slow.set(url, verdict);
    }
    return verdict;
  }

  private judge(url: string): string | null {
    if (url.length > HTTP_URL_MAX_LENGTH || !HTTP_URL_PATTERN.test(url)) return 'must be an absolute http(s) URL';
    if (CONTROL.test(url)) return 'must not contain control characters';
    let host: string;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an absolute http(s) URL';
      host = parsed.hostname.replace(/\.$/, '');
    } catch {
      return 'must be an absolute http(s) URL';
    }
    return this.hosts.has(host) ? null : `host ${host} is not ${this.label}`;
  }
}
