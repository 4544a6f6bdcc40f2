/**
 * How deep an item's `json` and `attributes` may nest (objects and arrays; the value itself is
 * level 1). JSON.parse accepts any depth, but JSON.stringify and every recursive walk after it
 * overflow the stack a few thousand levels down, so the limit is checked before anything recurses.
 */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests objects or arrays deeper than `maxDepth`. Iterative: any depth is safe to check. */
export function exceedsJsonDepth(value: unknown, maxDepth: number): boolean {
  const stack: Array<{ value: object; depth: number }> = [];
  if (value !== null && typeof value === 'object') stack.push({ value, depth: 1 });
  while (stack.length > 0) {
    const { value: node, depth } = stack.pop()!;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
