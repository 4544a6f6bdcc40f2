import type { CandidateChunk, EntityRef } from './contribution.js';
import type { Block } from './main-content.js';
import { refKey } from './contribution-builder.js';

/** Upper bound of a chunk, in estimated tokens (docs/extraction.md "Chunks"). */
export const MAX_CHUNK_TOKENS = 500;
const MAX_CHUNK_CHARS = MAX_CHUNK_TOKENS * 4;

/**
 * tokens_estimate of a chunk: ceil(characters / 4), the usual rule of thumb for English BPE
 * tokenizers; computed once when the chunk is stored.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Splits an over-long paragraph at sentence ends, then at spaces, into pieces of at most max chars. */
function splitLong(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const sentences = text.match(/[^.!?。！？]+(?:[.!?。！？]+["'”’)\]]*\s*|$)/g) ?? [text];
  const pieces: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current !== '' && current.length + sentence.length > max) {
      pieces.push(current.trim());
      current = '';
    }
    if (sentence.length > max) {
      for (let i = 0; i < sentence.length; i += max) {
        let end = Math.min(i + max, sentence.length);
        const space = sentence.lastIndexOf(' ', end);
        if (end < sentence.length && space > i + max / 2) end = space;
        pieces.push(sentence.slice(i, end).trim());
        i = end - max;
      }
    } else {
      current += sentence;
    }
  }
  if (current.trim() !== '') pieces.push(current.trim());
  return pieces.filter((p) => p !== '');
}

/**
 * Chunks of the main text: a heading always starts a new chunk (its trail is the headingPath);
 * within a section, paragraphs are packed together (tiny ones merge) up to MAX_CHUNK_TOKENS; a
 * paragraph longer than that is split at sentence ends.
 */
export function buildChunks(
  blocks: Block[],
  language: string,
  entities: Array<{ ref: EntityRef; name: string }>,
): CandidateChunk[] {
  const chunks: CandidateChunk[] = [];
  const trail: Array<{ level: number; text: string }> = [];
  let parts: string[] = [];
  let size = 0;
  const mentionsOf = mentionFinder(entities);
  const flush = (): void => {
    if (parts.length === 0) return;
    const text = parts.join('\n\n');
    chunks.push({
      text,
      headingPath: trail.map((t) => t.text),
      position: chunks.length,
      language,
      mentions: mentionsOf(text),
    });
    parts = [];
    size = 0;
  };
  for (const block of blocks) {
    if (block.kind === 'heading') {
      flush();
      while (trail.length > 0 && trail[trail.length - 1]!.level >= block.level) trail.pop();
      trail.push({ level: block.level, text: block.text });
      continue;
    }
    for (const piece of splitLong(block.text, MAX_CHUNK_CHARS)) {
      if (size > 0 && size + 2 + piece.length > MAX_CHUNK_CHARS) flush();
      parts.push(piece);
      size += (size > 0 ? 2 : 0) + piece.length;
    }
  }
  flush();
  return chunks;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const WORDS = /[\p{L}\p{N}]+/gu;
/** Up to this many names, each is searched for in every chunk: tokenizing every chunk instead cost a quarter of bench/extract.mjs's time (pages of a few entities). */
const DIRECT_SEARCH_MAX = 64;

/**
 * The entities a chunk mentions: those whose name (3+ characters) occurs in it as whole words,
 * case-insensitive, in (type, canonicalKey) order, once each. Past DIRECT_SEARCH_MAX names, a
 * name is looked for only in the chunks that hold its longest word as a word of their own (every
 * word of a name found as whole words is a word of the text), so a page of thousands of entities
 * costs a lookup per word, not a search of every chunk for every name.
 */
function mentionFinder(entities: ReadonlyArray<{ ref: EntityRef; name: string }>): (text: string) => EntityRef[] {
  const matchers = entities
    .filter((e) => e.name.length >= 3)
    .map((e) => ({ ref: e.ref, key: refKey(e.ref), needle: e.name.toLowerCase() }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byWord = new Map<string, number[]>();
  const anywhere: number[] = [];
  matchers.forEach((m, index) => {
    const longest = (m.needle.match(WORDS) ?? []).reduce<string | null>(
      (best, word) => (best === null || word.length > best.length ? word : best),
      null,
    );
    if (longest === null) anywhere.push(index);
    else if (byWord.has(longest)) byWord.get(longest)!.push(index);
    else byWord.set(longest, [index]);
  });
  const all = matchers.map((_, index) => index);
  return (text) => {
    const lower = text.toLowerCase();
    let candidates: number[] = all;
    // A few names are searched for directly: tokenizing the chunk costs more than their search.
    if (matchers.length > DIRECT_SEARCH_MAX) {
      const found = new Set(anywhere);
      for (const word of new Set(lower.match(WORDS) ?? []))
        for (const index of byWord.get(word) ?? []) found.add(index);
      candidates = [...found].sort((a, b) => a - b);
    }
    const mentions: EntityRef[] = [];
    const seen = new Set<string>();
    for (const index of candidates) {
      const m = matchers[index]!;
      if (seen.has(m.key) || !containsWord(lower, m.needle)) continue;
      seen.add(m.key);
      mentions.push({ type: m.ref.type, canonicalKey: m.ref.canonicalKey });
    }
    return mentions;
  };
}

/** needle occurs in text not glued to other letters or digits on either side. */
function containsWord(text: string, needle: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(needle, from);
    if (at < 0) return false;
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + needle.length] ?? '';
    if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) return true;
    from = at + 1;
  }
}
