/**
 * A property with several values is one fact whose value is {"values": [...]} in source order
 * without duplicates, its display joined with ", " (docs/contract.md#fact-rules). One value
 * stays a plain value, so single-valued facts read as before.
 */
export interface ListValue {
  value: string | number | { values: Array<string | number> };
  display?: string;
}

export function listValue(values: ReadonlyArray<string | number>): ListValue | null {
  const unique: Array<string | number> = [];
  for (const value of values) if (!unique.includes(value)) unique.push(value);
  if (unique.length === 0) return null;
  if (unique.length === 1) return { value: unique[0]! };
  return { value: { values: unique }, display: unique.join(', ') };
}
