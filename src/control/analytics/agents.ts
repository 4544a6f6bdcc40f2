/**
 * Who reads a node file, told from its User-Agent when it is served (docs/knowledge.md
 * "Analytics"). The buckets are the AI crawlers of docs/contract.md#management-api plus the two
 * search crawlers; anything else (browsers, scripts, no User-Agent) is `other`.
 */
export const AGENTS = [
  'gptbot',
  'claudebot',
  'perplexitybot',
  'google_extended',
  'ccbot',
  'bingbot',
  'googlebot',
  'other',
] as const;
export type Agent = (typeof AGENTS)[number];

/**
 * First match wins, so the order matters: Google's AI fetchers before Googlebot. Google trains
 * Gemini from Googlebot's crawl (Google-Extended is a robots.txt token, not a User-Agent), so
 * only fetchers that name themselves count as google_extended.
 */
const PATTERNS: ReadonlyArray<readonly [Agent, RegExp]> = [
  ['gptbot', /\b(?:GPTBot|ChatGPT-User|OAI-SearchBot)\b/i],
  ['claudebot', /\b(?:ClaudeBot|Claude-User|Claude-SearchBot|Claude-Web|anthropic-ai)\b/i],
  ['perplexitybot', /\b(?:PerplexityBot|Perplexity-User)\b/i],
  ['google_extended', /\b(?:Google-Extended|Google-CloudVertexBot)\b/i],
  ['ccbot', /\bCCBot\b/i],
  ['bingbot', /\bbingbot\b/i],
  ['googlebot', /\bGooglebot\b/i],
];

/** The agent bucket of a User-Agent header (`other` when absent or unknown). */
export function classifyAgent(userAgent: string | string[] | undefined): Agent {
  const ua = Array.isArray(userAgent) ? userAgent.join(' ') : userAgent;
  if (!ua) return 'other';
  for (const [agent, pattern] of PATTERNS) if (pattern.test(ua)) return agent;
  return 'other';
}
