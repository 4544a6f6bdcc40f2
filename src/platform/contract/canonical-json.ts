/**
 * Canonical JSON: object keys sorted at every depth (code-unit order, as Array.prototype.sort
 * compares), arrays in their order, undefined members left out. The item checksum hashes it
 * (docs/contract.md#ingest-item) and node records sort their nested objects with it.
 *
 * Nothing here recurses: JSON.parse accepts any depth, but a recursive walk or JSON.stringify
 * throws RangeError about 4,000 levels down, and a connector (or `nodectl push`) checksumming
 * such a file must get a checksum, not a crash. A value that contains itself is refused with a
 * TypeError, as JSON.stringify refuses it.
 */

type Container = Record<string, unknown> | unknown[];

/**
 * Depth up to which the sorted copy is written by JSON.stringify, which is about 8 times faster
 * than writeJson on object-heavy values. V8's JSON.stringify overflows at about 4,100 levels on
 * a fresh stack (3,400 under 2,000 caller frames); 1,000 leaves a wide margin.
 */
const NATIVE_STRINGIFY_MAX_DEPTH = 1000;

function isContainer(value: unknown): value is Container {
  return value !== null && typeof value === 'object';
}

interface SortFrame {
  source: Container;
  copy: Container;
  keys: readonly string[];
  next: number;
}

/**
 * A copy of `value` with object keys sorted at every depth and undefined members dropped.
 * Integer-like keys ("0", "10") still enumerate first in numeric order, as the engine orders
 * every object's own keys: canonical JSON inherits that order, and checksums with it.
 */
export function sortKeysDeep<T>(value: T): T {
  return sortCopy(value).copy as T;
}

/**
 * sortKeysDeep's copy and how deep it nests (a leaf is 0, `{}` is 1). Only a value that contains
 * itself nests without end, so the walk looks for one only past NATIVE_STRINGIFY_MAX_DEPTH
 * levels, sparing every ordinary value the bookkeeping.
 */
function sortCopy(value: unknown): { copy: unknown; depth: number } {
  if (!isContainer(value)) return { copy: value, depth: 0 };
  const root = emptyCopyOf(value);
  const stack: SortFrame[] = [{ source: value, copy: root, keys: sortedKeysOf(value), next: 0 }];
  let onPath: Set<object> | undefined;
  let depth = 1;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const source = frame.source as Record<string, unknown>;
    const key = nextKey(frame);
    if (key === undefined) {
      onPath?.delete(source);
      stack.pop();
      continue;
    }
    const v = source[key];
    if (!isContainer(v)) {
      (frame.copy as Record<string, unknown>)[key] = v;
      continue;
    }
    if (onPath === undefined && stack.length >= NATIVE_STRINGIFY_MAX_DEPTH)
      onPath = new Set(stack.map((f) => f.source));
    if (onPath !== undefined) {
      if (onPath.has(v))
        throw new TypeError(
          'canonical JSON: the value contains itself (a circular structure cannot be written as JSON)',
        );
      onPath.add(v);
    }
    const copy = emptyCopyOf(v);
    (frame.copy as Record<string, unknown>)[key] = copy;
    stack.push({ source: v, copy, keys: sortedKeysOf(v), next: 0 });
    if (stack.length > depth) depth = stack.length;
  }
  return { copy: root, depth };
}

function emptyCopyOf(value: Container): Container {
  return Array.isArray(value) ? new Array<unknown>(value.length) : {};
}

/** An array is walked by index; an object by its keys in code-unit order. */
function sortedKeysOf(value: Container): readonly string[] {
  return Array.isArray(value) ? [] : Object.keys(value).sort();
}

/** The frame's next member to copy, skipping array holes (kept as holes) and undefined object members; undefined when done. */
function nextKey(frame: SortFrame): string | number | undefined {
  const source = frame.source;
  if (Array.isArray(source)) {
    while (frame.next < source.length) {
      const i = frame.next++;
      if (i in source) return i;
    }
    return undefined;
  }
  while (frame.next < frame.keys.length) {
    const key = frame.keys[frame.next++]!;
    if (source[key] !== undefined) return key;
  }
  return undefined;
}

/**
 * Compact canonical JSON of `value`: the text JSON.stringify(sortKeysDeep(value)) would give, at
 * any depth. Members JSON cannot hold (undefined, functions, symbols) are left out of objects and
 * written as null in arrays; a bigint throws TypeError, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  const { copy, depth } = sortCopy(value);
  return depth <= NATIVE_STRINGIFY_MAX_DEPTH ? JSON.stringify(copy) : writeJson(copy);
}

interface WriteFrame {
  node: Container;
  keys: readonly string[];
  next: number;
  written: number;
}

/**
 * JSON.stringify for plain data (what sortKeysDeep returns: plain objects, arrays, primitives;
 * no toJSON, no cycles), without recursion: members in their own key order. Exported for tests.
 */
export function writeJson(value: unknown): string {
  if (!isContainer(value)) return JSON.stringify(value);
  const out: string[] = [];
  const stack: WriteFrame[] = [];
  const open = (node: Container): void => {
    out.push(Array.isArray(node) ? '[' : '{');
    stack.push({ node, keys: Array.isArray(node) ? [] : Object.keys(node), next: 0, written: 0 });
  };
  open(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (Array.isArray(frame.node)) {
      if (frame.next === frame.node.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (frame.next > 0) out.push(',');
      const v = frame.node[frame.next++];
      if (isContainer(v)) open(v);
      else out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    const node = frame.node as Record<string, unknown>;
    let key: string | undefined;
    let text: string | undefined;
    while (key === undefined && frame.next < frame.keys.length) {
      const k = frame.keys[frame.next++]!;
      const v = node[k];
      if (isContainer(v)) key = k;
      else if ((text = JSON.stringify(v)) !== undefined) key = k;
    }
    if (key === undefined) {
      out.push('}');
      stack.pop();
      continue;
    }
    out.push((frame.written++ > 0 ? ',' : '') + JSON.stringify(key) + ':');
    if (text !== undefined) out.push(text);
    else open(node[key] as Container);
  }
  return out.join('');
}
