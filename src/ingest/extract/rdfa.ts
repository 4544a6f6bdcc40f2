import type { AnyNode, Document, Element } from 'domhandler';
import { textOf } from './html-document.js';
import { linkAddress, linkedThing, type SchemaNode } from './json-ld.js';
import { absoluteUrl } from './normalize.js';
import { lookup } from './record-values.js';

/**
 * RDFa Lite / RDFa 1.1 in the page body (vocab, typeof, property, resource, prefix) read over
 * the page's own htmlparser2 tree into schema nodes shaped like JSON-LD. Only schema.org terms
 * are kept: a page's OpenGraph and Dublin Core RDFa in <meta property> is head metadata and
 * read there. Written here rather than taken from npm: the maintained RDFa parser
 * (rdfa-streaming-parser) is a Node stream with its own htmlparser2 copy that parses the page
 * again, while extraction is one synchronous pass over one tree (docs/extraction.md "RDFa").
 */
const SCHEMA = /^https?:\/\/schema\.org\//;
const INITIAL_PREFIXES: ReadonlyMap<string, string> = new Map([['schema', 'http://schema.org/']]);
const SKIP = new Set(['script', 'style', 'template', 'noscript']);
const IRI_ATTRIBUTE: Record<string, string> = {
  a: 'href',
  area: 'href',
  link: 'href',
  img: 'src',
  audio: 'src',
  video: 'src',
  source: 'src',
  iframe: 'src',
  embed: 'src',
  object: 'data',
};

interface Context {
  vocab: string | null;
  prefixes: ReadonlyMap<string, string>;
  subject: SchemaNode | null;
}

export function readRdfa(document: Document, baseUrl: string): SchemaNode[] {
  const top: SchemaNode[] = [];
  const stack: Array<{ node: AnyNode; ctx: Context }> = [];
  const push = (parent: Element | Document, ctx: Context): void => {
    for (let i = parent.children.length - 1; i >= 0; i -= 1) {
      const child = parent.children[i]!;
      if (child.type === 'tag') stack.push({ node: child, ctx });
    }
  };
  push(document, { vocab: null, prefixes: INITIAL_PREFIXES, subject: null });
  while (stack.length > 0) {
    const { node, ctx: parent } = stack.pop()!;
    const el = node as Element;
    if (SKIP.has(el.name)) continue;
    const a = el.attribs;
    let ctx = parent;
    if (a.vocab !== undefined || a.prefix !== undefined) {
      const prefixes = a.prefix === undefined ? ctx.prefixes : withPrefixes(ctx.prefixes, a.prefix);
      ctx = { ...ctx, vocab: a.vocab === undefined ? ctx.vocab : a.vocab.trim() || null, prefixes };
    }
    const props = a.property === undefined ? [] : terms(a.property, ctx);
    if (a.typeof !== undefined) {
      const item: SchemaNode = {};
      const types = terms(a.typeof, ctx);
      if (types.length > 0) item['@type'] = types.length === 1 ? types[0] : types;
      // The typed thing's IRI (RDFa 1.1): about, resource, else the element's own link (href, src).
      const iriAttribute = lookup(IRI_ATTRIBUTE, el.name);
      const id = a.about ?? a.resource ?? (iriAttribute === undefined ? undefined : a[iriAttribute]);
      if (id !== undefined) {
        const url = absoluteUrl(id, baseUrl);
        if (url !== null) item['@id'] = url;
      }
      if (props.length > 0 && ctx.subject !== null) for (const prop of props) addValue(ctx.subject, prop, item);
      else top.push(item);
      push(el, { ...ctx, subject: item });
      continue;
    }
    if (props.length > 0 && ctx.subject !== null) {
      // <a property="author" href="/people/jane">Jane Roe</a>: Jane Roe, whose page that is (the
      // RDFa object is the page alone, which names nobody).
      const value =
        (a.content === undefined && a.resource === undefined ? linkedThing(el, props) : null) ??
        propertyValue(el, baseUrl);
      if (value !== null) for (const prop of props) addValue(ctx.subject, prop, value);
      // A property with a content, resource or href value may still have described children.
    }
    push(el, ctx);
  }
  return top;
}

function addValue(subject: SchemaNode, prop: string, value: unknown): void {
  if (prop === '__proto__' || prop === '@type' || prop === '@id') return;
  const existing = Object.hasOwn(subject, prop) ? subject[prop] : undefined;
  if (existing === undefined) subject[prop] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else subject[prop] = [existing, value];
}

function propertyValue(el: Element, baseUrl: string): string | null {
  const a = el.attribs;
  if (a.content !== undefined) return a.content;
  if (el.name === 'time' && a.datetime !== undefined) return a.datetime;
  const iri =
    a.resource ??
    a.href ??
    (IRI_ATTRIBUTE[el.name] === 'src' ? a.src : IRI_ATTRIBUTE[el.name] === 'data' ? a.data : undefined);
  if (iri !== undefined) return linkAddress(iri) ?? absoluteUrl(iri, baseUrl);
  const text = textOf(el).replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}

/** schema.org local names of the space-separated terms, CURIEs or IRIs; others are dropped. */
function terms(value: string, ctx: Context): string[] {
  const out: string[] = [];
  for (const token of value.trim().split(/\s+/)) {
    if (token === '') continue;
    let iri: string | null = null;
    if (/^https?:\/\//.test(token)) iri = token;
    else if (token.includes(':')) {
      const colon = token.indexOf(':');
      const ns = ctx.prefixes.get(token.slice(0, colon).toLowerCase());
      if (ns !== undefined) iri = ns + token.slice(colon + 1);
    } else if (ctx.vocab !== null) iri = ctx.vocab.replace(/[^/#]$/, '$&/') + token;
    if (iri === null || !SCHEMA.test(iri)) continue;
    const local = iri.replace(SCHEMA, '');
    if (/^[A-Za-z][A-Za-z0-9]*$/.test(local) && !out.includes(local)) out.push(local);
  }
  return out;
}

function withPrefixes(prefixes: ReadonlyMap<string, string>, declaration: string): Map<string, string> {
  const out = new Map(prefixes);
  for (const match of declaration.matchAll(/([\w.-]+)\s*:\s+(\S+)/g)) out.set(match[1]!.toLowerCase(), match[2]!);
  return out;
}
