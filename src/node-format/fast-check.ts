import type { z } from 'zod';

/**
 * A fast yes/no check derived from a zod schema, for the million records of a large node: a
 * plain predicate that allocates nothing, where zod's safeParse builds a result and a copy of
 * every object. It is built from the schema's own definition (types, shapes, patterns, bounds),
 * so it checks the same constraints and follows any change to the schemas.
 *
 * It is a sufficient condition only: `true` means zod accepts the value too. `false` means "ask
 * zod", which gives the verdict and the issues of the error message. Any construct this file
 * does not know (refinements, transforms, defaults, other formats) makes the check always
 * `false`, so an unknown schema costs speed, never correctness.
 */
export type FastCheck = (value: unknown) => boolean;

const never: FastCheck = () => false;
const cache = new WeakMap<z.ZodType, FastCheck>();

/** The fast check of `schema` (built once per schema). */
export function fastCheckOf(schema: z.ZodType): FastCheck {
  let check = cache.get(schema);
  if (check === undefined) {
    check = build(schema) ?? never;
    cache.set(schema, check);
  }
  return check;
}

/** Zod's internal view of a schema: its definition and the traits (classes) it was built from. */
interface Internals {
  def: Def;
  traits: Set<string>;
}
interface Def {
  type: string;
  checks?: Array<{ _zod: { def: CheckDef } }>;
  [key: string]: unknown;
}
interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  value?: unknown;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
}

const internals = (schema: unknown) => (schema as { _zod: Internals })._zod;
/** Variants that share a def.type with a supported kind but accept less. */
const UNSUPPORTED_TRAITS = ['$ZodExactOptional', '$ZodXor', '$ZodDiscriminatedUnion'];
/** String formats whose whole check is their pattern (zod's $ZodISODateTime, $ZodISODate). */
const PATTERN_FORMATS = new Set(['datetime', 'date']);

/** Returns null for anything not known to be checked exactly as zod does. */
function build(schema: unknown): FastCheck | null {
  const { def, traits } = internals(schema);
  if (UNSUPPORTED_TRAITS.some((t) => traits.has(t)) || def.coerce === true) return null;
  switch (def.type) {
    case 'string': return buildString(def);
    case 'number': return buildNumber(def);
    case 'boolean': return noChecks(def) ? (v) => typeof v === 'boolean' : null;
    case 'unknown': return noChecks(def) ? () => true : null;
    case 'literal': return noChecks(def) ? oneOf(def.values as unknown[]) : null;
    case 'enum': {
      const values = Object.values(def.entries as Record<string, unknown>);
      return noChecks(def) && values.every((v) => typeof v === 'string') ? oneOf(values) : null;
    }
    case 'optional': {
      const inner = build(def.innerType);
      return inner === null || !noChecks(def) ? null : (v) => v === undefined || inner(v);
    }
    case 'nullable': {
      const inner = build(def.innerType);
      return inner === null || !noChecks(def) ? null : (v) => v === null || inner(v);
    }
    case 'union': {
      const options = (def.options as unknown[]).map(build);
      if (!noChecks(def) || options.some((o) => o === null)) return null;
      const checks = options as FastCheck[];
      return (v) => checks.some((check) => check(v));
    }
    case 'array': return buildArray(def);
    case 'object': return buildObject(def);
    case 'record': return buildRecord(def);
    default: return null;
  }
}

function noChecks(def: Def): boolean {
  return def.checks === undefined || def.checks.length === 0;
}

function oneOf(values: unknown[]): FastCheck {
  const set = new Set(values);
  return (v) => set.has(v);
}

/** Length bounds as zod counts them on strings: in code points (a surrogate pair is one). */
function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

function buildString(def: Def): FastCheck | null {
  const patterns: RegExp[] = [];
  let min = 0;
  let max = Infinity;
  if (def.format !== undefined) {
    if (!PATTERN_FORMATS.has(def.format as string) || !(def.pattern instanceof RegExp)) return null;
    patterns.push(def.pattern);
  }
  for (const { _zod: { def: check } } of def.checks ?? []) {
    if (check.check === 'string_format' && check.format === 'regex' && check.pattern instanceof RegExp) patterns.push(check.pattern);
    else if (check.check === 'min_length' && typeof check.minimum === 'number') min = Math.max(min, check.minimum);
    else if (check.check === 'max_length' && typeof check.maximum === 'number') max = Math.min(max, check.maximum);
    else return null;
  }
  // Stateful (g, y) patterns would need lastIndex resets; none is used, so they are left to zod.
  if (patterns.some((p) => p.global || p.sticky)) return null;
  // Common shapes get their own closures: this runs for every string field of a million records.
  const [pattern] = patterns;
  if (patterns.length === 0 && min <= 1 && max === Infinity) return (v) => typeof v === 'string' && v.length >= min;
  if (patterns.length === 1 && min === 0 && max === Infinity) return (v) => typeof v === 'string' && pattern!.test(v);
  return (v) => {
    if (typeof v !== 'string') return false;
    // A code point is one or two units: count only when the unit count leaves it in doubt.
    if (v.length < min || (v.length < min * 2 && codePointLength(v) < min)) return false;
    if (v.length > max && codePointLength(v) > max) return false;
    for (const p of patterns) if (!p.test(v)) return false;
    return true;
  };
}

function buildNumber(def: Def): FastCheck | null {
  let integer = false;
  const bounds: Array<(v: number) => boolean> = [];
  const own: CheckDef[] = def.format === undefined ? [] : [{ check: 'number_format', format: def.format as string }];
  for (const check of [...own, ...(def.checks ?? []).map((c) => c._zod.def)]) {
    const { value, inclusive } = check;
    if (check.check === 'number_format' && check.format === 'safeint') integer = true;
    else if (check.check === 'greater_than' && typeof value === 'number') bounds.push(inclusive === true ? (v) => v >= value : (v) => v > value);
    else if (check.check === 'less_than' && typeof value === 'number') bounds.push(inclusive === true ? (v) => v <= value : (v) => v < value);
    else return null;
  }
  return (v) => typeof v === 'number' && Number.isFinite(v) && (!integer || Number.isSafeInteger(v)) && bounds.every((bound) => bound(v));
}

function buildArray(def: Def): FastCheck | null {
  const element = build(def.element);
  if (element === null) return null;
  let min = 0;
  let max = Infinity;
  for (const { _zod: { def: check } } of def.checks ?? []) {
    if (check.check === 'min_length' && typeof check.minimum === 'number') min = Math.max(min, check.minimum);
    else if (check.check === 'max_length' && typeof check.maximum === 'number') max = Math.min(max, check.maximum);
    else return null;
  }
  return (v) => {
    if (!Array.isArray(v) || v.length < min || v.length > max) return false;
    for (const item of v) if (!element(item)) return false;
    return true;
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function buildObject(def: Def): FastCheck | null {
  if (!noChecks(def)) return null;
  const shape = def.shape as Record<string, unknown>;
  const keys = Object.keys(shape);
  if (keys.includes('__proto__')) return null;
  const fields = keys.map((key) => ({ key, check: build(shape[key]) }));
  if (fields.some((f) => f.check === null)) return null;
  const checked = fields as Array<{ key: string; check: FastCheck }>;
  // No catchall strips unknown keys, z.unknown() keeps them: both accept them. z.never() rejects them.
  const catchall = def.catchall === undefined ? 'any' : internals(def.catchall).def.type;
  if (catchall !== 'any' && catchall !== 'unknown' && catchall !== 'never') return null;
  const known = new Set(keys);
  return (v) => {
    if (!isObject(v)) return false;
    for (const { key, check } of checked) if (!check(v[key])) return false;
    if (catchall === 'never') for (const key in v) if (!known.has(key)) return false;
    return true;
  };
}

/** Records with plain string keys only (z.record(z.string(), ...)): the open `attributes` objects. */
function buildRecord(def: Def): FastCheck | null {
  const key = internals(def.keyType).def;
  if (!noChecks(def) || key.type !== 'string' || key.format !== undefined || !noChecks(key) || def.mode === 'loose') return null;
  const value = build(def.valueType);
  if (value === null) return null;
  const anyValue = internals(def.valueType).def.type === 'unknown';
  return (v) => {
    // Stricter than zod's plain-object test: an object made by a literal or JSON.parse, no symbol keys.
    if (!isObject(v)) return false;
    const prototype = Object.getPrototypeOf(v);
    if ((prototype !== Object.prototype && prototype !== null) || Object.getOwnPropertySymbols(v).length > 0) return false;
    if (!anyValue) for (const k of Object.keys(v)) if (!value(v[k])) return false;
    return true;
  };
}
