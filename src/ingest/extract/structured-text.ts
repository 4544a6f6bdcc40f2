import type { Element } from 'domhandler';
import { textOf } from './html-document.js';
import type { Block } from './main-content.js';
import { cleanText } from './normalize.js';
import { toPredicate } from './record-values.js';

/** Key/value pairs and question/answer pairs read from the markup of the page. */
export interface KeyValue {
  key: string;
  /** Null when the label has no snake_case form (toPredicate): the pair is dropped with a warning. */
  predicate: string | null;
  value: string;
}

export interface QuestionAnswer {
  question: string;
  answer: string;
}

const MAX_KEY = 60;
const MAX_VALUE = 500;
const MAX_ANSWER = 2000;
const MAX_PREDICATE = 40;

/** A label and its value, or null when the row reads as prose rather than a key/value pair. */
function pair(key: string, value: string): KeyValue | null {
  const label = cleanText(key).replace(/[:：]\s*$/, '');
  const text = cleanText(value);
  if (label === '' || text === '' || label.length > MAX_KEY || text.length > MAX_VALUE) return null;
  const predicate = toPredicate(label);
  if (predicate !== null && predicate.length > MAX_PREDICATE) return null;
  return { key: label, predicate, value: text };
}

/** The children named `names` of el, looking through div, tbody, thead and tfoot wrappers, in document order. */
function childElements(el: Element, names: readonly string[]): Element[] {
  const out: Element[] = [];
  // An explicit stack: wrappers may nest to any depth.
  const stack: Array<{ parent: Element; index: number }> = [{ parent: el, index: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.index >= frame.parent.children.length) {
      stack.pop();
      continue;
    }
    const child = frame.parent.children[frame.index++]!;
    if (child.type !== 'tag') continue;
    const element = child as Element;
    if (names.includes(element.name)) out.push(element);
    else if (WRAPPERS.has(element.name)) stack.push({ parent: element, index: 0 });
  }
  return out;
}

const WRAPPERS = new Set(['div', 'tbody', 'thead', 'tfoot']);

/** <dl>: each <dt> with the <dd>s that follow it ("; "-joined). */
export function readDefinitionLists(lists: Element[]): KeyValue[] {
  const out: KeyValue[] = [];
  for (const list of lists) {
    let key: string | null = null;
    let values: string[] = [];
    const emit = (): void => {
      if (key === null || values.length === 0) return;
      const kv = pair(key, values.join('; '));
      if (kv !== null) out.push(kv);
    };
    for (const el of childElements(list, ['dt', 'dd'])) {
      if (el.name === 'dt') {
        emit();
        key = textOf(el);
        values = [];
      } else {
        const text = cleanText(textOf(el));
        if (text !== '') values.push(text);
      }
    }
    emit();
  }
  return out;
}

/**
 * Two-column tables: every row has exactly two cells; a first row of two <th> is a column header
 * and is skipped. Wider tables are data grids, not key/value lists, and are left to the chunks.
 */
export function readKeyValueTables(tables: Element[]): KeyValue[] {
  const out: KeyValue[] = [];
  for (const table of tables) {
    const rows = childElements(table, ['tr']);
    if (rows.length === 0) continue;
    const cells = rows.map((row) => childElements(row, ['td', 'th']));
    if (cells.some((row) => row.length !== 2)) continue;
    const start = cells[0]!.every((cell) => cell.name === 'th') && cells.length > 1 ? 1 : 0;
    for (const row of cells.slice(start)) {
      const kv = pair(textOf(row[0]!), textOf(row[1]!));
      if (kv !== null) out.push(kv);
    }
  }
  return out;
}

/** <details><summary>question</summary>answer</details>. */
export function readDetails(details: Element[]): QuestionAnswer[] {
  const out: QuestionAnswer[] = [];
  for (const el of details) {
    let question = '';
    let answer = '';
    for (const child of el.children) {
      if (child.type === 'tag' && (child as Element).name === 'summary') question += textOf(child);
      else answer += textOf(child) + ' ';
    }
    const q = cleanText(question);
    const a = cleanText(answer);
    if (q !== '' && a !== '' && a.length <= MAX_ANSWER) out.push({ question: q, answer: a });
  }
  return out;
}

/** h2/h3 headings that end in "?" with the text up to the next heading as the answer. */
export function readQuestionHeadings(blocks: Block[]): QuestionAnswer[] {
  const out: QuestionAnswer[] = [];
  for (let i = 0; i < blocks.length; i += 1) {
    const block = blocks[i]!;
    if (block.kind !== 'heading' || (block.level !== 2 && block.level !== 3) || !/[?？]$/.test(block.text)) continue;
    const parts: string[] = [];
    for (let j = i + 1; j < blocks.length && blocks[j]!.kind === 'text' && blocks[j]!.tag !== 'summary'; j += 1)
      parts.push(blocks[j]!.text);
    const answer = parts.join(' ');
    if (answer !== '' && answer.length <= MAX_ANSWER) out.push({ question: block.text, answer });
  }
  return out;
}
