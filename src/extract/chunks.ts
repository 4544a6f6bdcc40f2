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
export function buildChunks(blocks: Block[], language: string, entities: Array<{ ref: EntityRef; name: string }>): CandidateChunk[] {
  const chunks: CandidateChunk[] = [];
  const trail: Array<{ level: number; text: string }> = [];
  let parts: string[] = [];
  let size = 0;
  const matchers = entities
    .filter((e) => e.name.length >= 3)
    .map((e) => ({ ref: e.ref, needle: e.name.toLowerCase() }))
    .sort((a, b) => (refKey(a.ref) < refKey(b.ref) ? -1 : refKey(a.ref) > refKey(b.ref) ? 1 : 0));
  const flush = (): void => {
    if (parts.length === 0) return;
    const text = parts.join('\n\n');
    const lower = text.toLowerCase();
    const mentions: EntityRef[] = [];
    const seen = new Set<string>();
    for (const m of matchers) {
      if (seen.has(refKey(m.ref)) || !containsWord(lower, m.needle)) continue;
      seen.add(refKey(m.ref));
      mentions.push({ type: m.ref.type, canonicalKey: m.ref.canonicalKey });
    }
    chunks.push({ text, headingPath: trail.map((t) => t.text), position: chunks.length, language, mentions });
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
