import { unescapeMarkdown } from '../markdown.js';

/**
 * llms.txt as a consumer reads it (llmstxt.org): title, summary, sections and their links. Text
 * comes back with its markdown backslash escapes undone; link urls are returned as written.
 */
export interface ParsedLlmsTxt {
  title: string | null;
  summary: string | null;
  sections: Array<{ title: string; links: Array<{ text: string; url: string; note: string | null }> }>;
  links: Array<{ text: string; url: string; note: string | null }>;
}

const LINK = /^\s*[-*]\s+\[([^\]]+)\]\(([^)\s]+)\)(?::\s*(.*))?$/;

export function parseLlmsTxt(text: string): ParsedLlmsTxt {
  const lines = text.split('\n');
  const result: ParsedLlmsTxt = { title: null, summary: null, sections: [], links: [] };
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const h1 = /^#\s+(.+)$/.exec(lines[i] ?? '');
  if (h1 !== null && !lines[i]!.startsWith('##')) {
    result.title = unescapeMarkdown(h1[1]!.trim());
    i++;
  }
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const quote: string[] = [];
  while (i < lines.length && lines[i]!.startsWith('>')) quote.push(lines[i++]!.replace(/^>\s?/, ''));
  if (quote.length > 0) result.summary = unescapeMarkdown(quote.join(' ').trim());
  let section: ParsedLlmsTxt['sections'][number] | null = null;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const h2 = /^##\s+(.+)$/.exec(line);
    if (h2 !== null) {
      section = { title: h2[1]!.trim(), links: [] };
      result.sections.push(section);
      continue;
    }
    const link = LINK.exec(line);
    if (link !== null) {
      const note = link[3]?.trim();
      const entry = { text: unescapeMarkdown(link[1]!), url: link[2]!, note: note ? unescapeMarkdown(note) : null };
      result.links.push(entry);
      section?.links.push(entry);
    }
  }
  return result;
}
