import type { AnyNode, Element, ParentNode } from 'domhandler';
import { type HtmlScan, textOf } from './html-document.js';
import { cleanText } from './normalize.js';

/** A unit of the main text: a heading (level 1..6) or a paragraph-like run of text. */
export interface Block {
  kind: 'heading' | 'text';
  level: number;
  /** The element the text sits in (p, li, td, div, ...). */
  tag: string;
  text: string;
  /**
   * For <p> blocks: the element, whose raw text (line breaks ignored) is what Readability reads
   * as an excerpt. firstParagraph reads it; only the first paragraph is ever asked for it.
   */
  paragraph?: Element;
  /** Text of the page's byline element (or of the short line holding it): kept for the chunks, never taken as the description. */
  inByline?: boolean;
}

const SKIP_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'button',
  'select',
  'textarea',
  'input',
  'head',
  'title',
  'form',
]);
const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'header',
  'hr',
  'li',
  'main',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);
const HEADING = /^h([1-6])$/;
/**
 * A <br> is buffered as U+2028 (line separator): a line break in the markup is only whitespace,
 * so a paragraph breaks at <br><br> (outside <pre>, where a blank line breaks it too).
 */
const BR = '\u2028';
const BR_BREAK = /\u2028\s*\u2028/;
const PRE_BREAK = /[\n\u2028]\s*[\n\u2028]/;

/**
 * The element that holds the main content: an explicit articleBody, a single <article> or a
 * single <main>; otherwise the container with the highest paragraph score (Readability's idea:
 * paragraphs of 25+ characters score 1 + commas + length/100 for their parent and half of it
 * for their grandparent); otherwise <body>.
 */
export function chooseContentRoot(scan: HtmlScan): AnyNode {
  const explicit = scan.explicitMain[0];
  if (explicit !== undefined) return explicit;
  let best: Element | null = null;
  let bestScore = 0;
  for (const [el, score] of scan.scores) {
    if (score > bestScore) {
      best = el;
      bestScore = score;
    }
  }
  if (best !== null) return best;
  return scan.body ?? scan.document;
}

/** An element being read by readBlocks: its next child, and the block its loose text belongs to. */
interface ReadFrame {
  parent: ParentNode;
  index: number;
  tag: string;
  owner: Element | null;
  /** A block element: its text is flushed as its own block when its children are read. */
  block: boolean;
}

/** The main content as blocks, navigation and boilerplate (scan.skipped) left out; blocks of the byline element are marked. */
export function readBlocks(root: AnyNode, skipped: Set<Element>, byline: Element | null = null): Block[] {
  const blocks: Block[] = [];
  let buffer = '';
  const flush = (tag: string, el: Element | null): void => {
    if (buffer === '') return;
    const parts = buffer.split(tag === 'pre' ? PRE_BREAK : BR_BREAK);
    buffer = '';
    for (const part of parts) {
      const text = cleanText(part);
      if (text === '') continue;
      const block: Block = { kind: 'text', level: 0, tag, text };
      if (tag === 'p' && el !== null && parts.length === 1) block.paragraph = el;
      // The byline, or the short line holding it ("Le Monde | 04.05.2015 | Par Martin Untersinger").
      if (
        byline !== null &&
        (isWithin(el, byline) ||
          (el !== null && text.length < BYLINE_LINE_MAX_CHARS && isWithin(byline, el, BYLINE_LINE_DEPTH)))
      )
        block.inByline = true;
      blocks.push(block);
    }
  };
  // An explicit stack of open elements rather than recursion, so no nesting depth exhausts the
  // call stack. A frame reads its element's children in order; a block element flushes the
  // text before it and its own text when its frame closes.
  const stack: ReadFrame[] = [];
  if ('children' in root)
    stack.push({
      parent: root,
      index: 0,
      tag: root.type === 'tag' ? (root as Element).name : 'body',
      owner: root.type === 'tag' ? (root as Element) : null,
      block: false,
    });
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.index >= frame.parent.children.length) {
      stack.pop();
      if (frame.block) flush(frame.tag, frame.owner);
      continue;
    }
    const child = frame.parent.children[frame.index++]!;
    if (child.type === 'text') {
      buffer += child.data;
      continue;
    }
    if (child.type !== 'tag') continue;
    const el = child as Element;
    if (skipped.has(el) || SKIP_TAGS.has(el.name)) continue;
    const heading = HEADING.exec(el.name);
    if (heading !== null) {
      flush(frame.tag, frame.owner);
      const text = cleanText(textOf(el, skipped));
      if (text !== '') blocks.push({ kind: 'heading', level: Number(heading[1]), tag: el.name, text });
    } else if (el.name === 'br') {
      buffer += BR;
    } else if (BLOCK_TAGS.has(el.name)) {
      flush(frame.tag, frame.owner);
      stack.push({ parent: el, index: 0, tag: el.name, owner: el, block: true });
    } else {
      stack.push({ parent: el, index: 0, tag: frame.tag, owner: frame.owner, block: false });
    }
  }
  flush('body', null);
  return blocks;
}

/**
 * A block shorter than this holding the byline element at most BYLINE_LINE_DEPTH levels down is
 * the byline's line (dates, publication, author), not a container of the whole text.
 */
const BYLINE_LINE_MAX_CHARS = 200;
const BYLINE_LINE_DEPTH = 3;

/** Whether `el` is `ancestor` or below it (at most `levels` levels below). */
function isWithin(el: Element | null, ancestor: Element, levels = Infinity): boolean {
  let depth = 0;
  for (
    let node: Element | null = el;
    node !== null && depth <= levels;
    node = node.parent as Element | null, depth += 1
  )
    if (node === ancestor) return true;
  return false;
}

/** Plain text (item.text or a mapped text field) as blocks: blank lines separate paragraphs, "#" lines are headings. */
export function readTextBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  for (const part of text.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    const lines = part.split('\n');
    let paragraph: string[] = [];
    const flush = (): void => {
      const joined = cleanText(paragraph.join(' '));
      if (joined !== '') blocks.push({ kind: 'text', level: 0, tag: 'p', text: joined });
      paragraph = [];
    };
    for (const line of lines) {
      const heading = /^(#{1,6})\s+(.+)$/.exec(line.trim());
      if (heading !== null) {
        flush();
        blocks.push({
          kind: 'heading',
          level: heading[1]!.length,
          tag: `h${heading[1]!.length}`,
          text: cleanText(heading[2]!),
        });
      } else {
        paragraph.push(line);
      }
    }
    flush();
  }
  return blocks;
}

/** Longest first line of a plain text taken as its title: a longer one is a sentence of prose. */
const MAX_TEXT_TITLE_CHARS = 150;

/**
 * The title and description of a plain text, as an HTML page has them (docs/extraction.md
 * "Plain text"): its first line ("#" marks dropped) is the title, unless longer than
 * MAX_TEXT_TITLE_CHARS; the first paragraph after that line is the description.
 */
export function readTextLead(text: string): { title: string | null; description: string | null } {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const first = lines.findIndex((line) => line.trim() !== '');
  if (first === -1) return { title: null, description: null };
  const line = cleanText(lines[first]!.replace(/^\s*#{1,6}\s+/, ''));
  const title = line !== '' && line.length <= MAX_TEXT_TITLE_CHARS ? line : null;
  const paragraph = readTextBlocks(lines.slice(title === null ? first : first + 1).join('\n')).find(
    (b) => b.kind === 'text',
  );
  return { title, description: paragraph?.text ?? null };
}

/**
 * Loose text in a <div> is a paragraph in all but name (Readability wraps it in <p>), but short
 * runs there are mostly labels ("From Wikipedia, the free encyclopedia"): they count only when
 * the content has no other paragraph.
 */
const MIN_DIV_PARAGRAPH_CHARS = 80;

/** The label an ad slot prints where no class says so: never a page's description. */
const AD_LABEL =
  /^\s*(?:advertisement|advertising|sponsored(?: content)?|anzeige|werbung|publicité|publicidad|pubblicità|reklame|annons)\s*$/i;

/** A photo's caption or credit by its first words ("Photo: ...", "(All photos: Atlas staff)", "图为 ..."). */
const CAPTION_START =
  /^\(?(?:all\s+)?(?:photos?|pictures?|pictured|images?|illustrations?|credits?|video)\s*:|^(?:图为|圖為|图：|圖：|写真[:：])/i;
/** A caption's or a credit's class ("wp-caption-text", "article_caption_w_attr", "photo-credit"). */
const CAPTION_CLASS = /caption|credit|attribution/i;
/** A paragraph shorter than this that is a date line or one link is page furniture, not a summary. */
const FURNITURE_MAX_CHARS = 80;

/**
 * A paragraph that is page furniture rather than the start of the text: a figure's caption or a
 * photo credit (by its place, its class or its first words), a short line holding a <time>
 * ("Published 21 November 2019 · Tagged with ..."), or a short one that is a single link ("View
 * this image ›").
 */
function isFurniture(paragraph: Element | undefined, text: string): boolean {
  if (CAPTION_START.test(text)) return true;
  if (paragraph === undefined) return false;
  if (CAPTION_CLASS.test(paragraph.attribs.class ?? '')) return true;
  for (
    let el: ParentNode | null = paragraph.parent, level = 0;
    el !== null && el.type === 'tag' && level < 4;
    el = el.parent, level += 1
  ) {
    if ((el as Element).name === 'figcaption' || (el as Element).name === 'figure') return true;
  }
  if (text.length >= FURNITURE_MAX_CHARS) return false;
  const tags = paragraph.children.filter((child) => child.type === 'tag') as Element[];
  const textOutsideTags = paragraph.children.some((child) => child.type === 'text' && child.data.trim() !== '');
  if (tags.length === 1 && tags[0]!.name === 'a' && !textOutsideTags) return true;
  let hasTime = false;
  const stack: AnyNode[] = [...paragraph.children];
  while (stack.length > 0 && !hasTime) {
    const node = stack.pop()!;
    if (node.type !== 'tag') continue;
    hasTime = (node as Element).name === 'time';
    stack.push(...(node as Element).children);
  }
  return hasTime;
}

/**
 * The first paragraph of the main content, for a description when the page declares none; never
 * the byline (Readability removes it), an ad slot's label, or page furniture (isFurniture).
 * `skipped`: the elements readBlocks left out.
 */
export function firstParagraph(blocks: Block[], skipped: ReadonlySet<Element>): string | null {
  let shortDiv: string | null = null;
  for (const block of blocks) {
    if (block.kind !== 'text' || block.inByline === true || AD_LABEL.test(block.text)) continue;
    if (block.tag === 'p') {
      const text = block.paragraph === undefined ? block.text : cleanText(textOf(block.paragraph, skipped));
      if (isFurniture(block.paragraph, text)) continue;
      return text;
    }
    if (block.tag !== 'div') continue;
    if (block.text.length >= MIN_DIV_PARAGRAPH_CHARS) return block.text;
    shortDiv ??= block.text;
  }
  return shortDiv;
}
