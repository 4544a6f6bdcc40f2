/** llms.txt as a consumer reads it (llmstxt.org): title, summary, sections and their links. */
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
    result.title = h1[1]!.trim();
    i++;
  }
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const quote: string[] = [];
  while (i < lines.length && lines[i]!.startsWith('>')) quote.push(lines[i++]!.replace(/^>\s?/, ''));
  if (quote.length > 0) result.summary = quote.join(' ').trim();
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
      const entry = { text: link[1]!, url: link[2]!, note: link[3]?.trim() || null };
      result.links.push(entry);
      section?.links.push(entry);
    }
  }
  return result;
}
