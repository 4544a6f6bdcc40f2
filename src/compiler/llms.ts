import { briefText, type EntityBrief, type FactBrief } from './highlights.js';
import { markdownDestination, markdownLinkText, markdownText } from './markdown.js';

/** llms.txt size budget in characters. */
export const LLMS_TXT_BUDGET = 10_000;
/** llms-full.txt size budget in characters (SPEC: expanded narrative; kept under 100,000). */
export const LLMS_FULL_BUDGET = 100_000;

export interface LlmsInput {
  brand: string;
  domain: string;
  description: string;
  languages: string[];
  /** Record files with their counts, in reading order. */
  recordFiles: Array<{ path: string; title: string; records: number }>;
  /** Other node files worth linking, in order. */
  otherFiles: Array<{ path: string; title: string; note: string }>;
  /** Top entities, best first (for key pages). */
  topEntities: EntityBrief[];
}

/**
 * llms.txt (llmstxt.org shape): an H1, a blockquote summary, then H2 sections of markdown links.
 * Key pages are added best first while the text stays within LLMS_TXT_BUDGET. Graph text is
 * escaped as markdown text, page URLs as link destinations (markdown.ts).
 */
export function renderLlmsTxt(input: LlmsInput): string {
  const head: string[] = [
    `# ${title(input)}`,
    '',
    `> ${markdownText(input.description)}`,
    '',
    `Knowledge node of ${markdownText(input.domain)} in ${input.languages.join(', ')}. Read manifest.json first: it lists every file with its checksum. Every record has a stable id and a schema_version.`,
    '',
    '## Node files',
    '',
    '- [Manifest](manifest.json): every file of this version with checksum, size and record count',
    '- [AI entry point](ai.json): license, languages and the reading order of the files',
    '- [Full summary](llms-full.txt): the most important entities and facts as plain text',
    ...input.recordFiles.map((f) => `- [${f.title}](${f.path}): ${f.records} records`),
    '',
  ];
  const tail: string[] = [
    '## Optional',
    '',
    ...input.otherFiles.map((f) => `- [${f.title}](${f.path}): ${f.note}`),
    '',
  ];
  let size = head.join('\n').length + tail.join('\n').length + 40;
  const pages: string[] = [];
  const seen = new Set<string>();
  for (const entity of input.topEntities) {
    if (entity.sourceUrl === null || seen.has(entity.sourceUrl)) continue;
    const text = markdownLinkText(entity.name) || markdownLinkText(entity.sourceUrl);
    const line = `- [${text}](${markdownDestination(entity.sourceUrl)}): ${markdownText(entity.type)}`;
    if (size + line.length + 1 > LLMS_TXT_BUDGET - 120 || pages.length >= 50) break;
    seen.add(entity.sourceUrl);
    pages.push(line);
    size += line.length + 1;
  }
  const keyPages =
    pages.length === 0
      ? []
      : ['## Key pages', '', ...pages, '- [All pages](sitemap-ai.xml): every source page with its importance', ''];
  return [...head, ...keyPages, ...tail].join('\n');
}

/** The brand as the H1 text; the domain when nothing printable is left of it. */
function title(input: { brand: string; domain: string }): string {
  return markdownText(input.brand) || markdownText(input.domain);
}

export interface LlmsFullInput {
  brand: string;
  domain: string;
  description: string;
  /** Ranked entities, best first, with their facts best first. */
  entities: Array<{ entity: EntityBrief; facts: FactBrief[] }>;
  totalEntities: number;
  totalFacts: number;
  recordFiles: Array<{ path: string; records: number }>;
}

/**
 * llms-full.txt: the most important entities with their facts, best first, as long as the text
 * stays within LLMS_FULL_BUDGET; it ends by saying what was left out and where the rest is.
 */
export function renderLlmsFull(input: LlmsFullInput): string {
  const header = [
    `# ${title(input)}: full knowledge summary`,
    '',
    `> ${markdownText(input.description)}`,
    '',
    `The most important entities of ${markdownText(input.domain)} and their facts, most important first. Ids refer to the records of this node.`,
    '',
    '',
  ].join('\n');
  const footerReserve = 600 + input.recordFiles.length * 60;
  let text = header;
  let entitiesShown = 0;
  let factsShown = 0;
  for (const { entity, facts } of input.entities) {
    const lines = [
      `## ${markdownText(entity.name)}`,
      '',
      `${markdownText(entity.type)} · ${entity.language} · importance ${entity.importance} · ${entity.id}`,
    ];
    if (entity.sourceUrl !== null) lines.push(`Source: ${markdownDestination(entity.sourceUrl)}`);
    lines.push('');
    let block = lines.join('\n') + '\n';
    let shown = 0;
    for (const fact of facts) {
      const line = `- ${fact.predicate.replace(/_/g, ' ')}: ${markdownText(briefText(fact))}\n`;
      if (text.length + block.length + line.length + footerReserve > LLMS_FULL_BUDGET) break;
      block += line;
      shown++;
    }
    if (shown > 0) block += '\n';
    if (text.length + block.length + footerReserve > LLMS_FULL_BUDGET) break;
    text += block;
    entitiesShown++;
    factsShown += shown;
  }
  const leftEntities = input.totalEntities - entitiesShown;
  const leftFacts = input.totalFacts - factsShown;
  const footer = [
    '## What is left out',
    '',
    leftEntities === 0 && leftFacts === 0
      ? `Nothing: all ${input.totalEntities} entities and ${input.totalFacts} facts are shown above.`
      : `This summary shows ${entitiesShown} of ${input.totalEntities} entities and ${factsShown} of ${input.totalFacts} facts (limit ${String(LLMS_FULL_BUDGET).replace(/\B(?=(\d{3})+$)/g, ',')} characters). ${leftEntities} entities and ${leftFacts} facts are left out; every record is in the files below, and priority-feed.jsonl ranks the most important ones.`,
    '',
    ...input.recordFiles.map((f) => `- ${f.path} (${f.records} records)`),
    '',
  ].join('\n');
  return text + footer;
}
