import type { z } from 'zod';

/**
 * A fast yes/no check derived from a zod schema, for the million records of a large node: one
 * generated straight-line function per schema that allocates nothing, where zod's safeParse
 * builds a result, issue lists and a copy of every object. It is generated from the schema's
 * own definition (types, shapes, patterns, bounds), so it checks the same constraints and
 * follows any change to the schemas.
 *
 * It is a sufficient condition only: `true` means zod accepts the value too. `false` means "ask
 * zod", which gives the verdict and the issues of the error message. Any construct this file
 * does not know (refinements, transforms, defaults, other formats) makes the check always
 * `false`, so an unknown schema costs speed, never correctness.
 */
export type FastCheck = (value: unknown) => boolean;

const never: FastCheck = () => false;
const cache = new WeakMap<z.ZodType, FastCheck>();

/** The fast check of `schema` (generated once per schema). */
export function fastCheckOf(schema: z.ZodType): FastCheck {
  let check = cache.get(schema);
  if (check === undefined) {
    check = generate(schema) ?? never;
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

/**
 * The generated source refers to values (patterns, sets, nested checks) as `r[i]` and names its
 * locals t0, t1, ...; every emitted statement returns false when its value fails.
 */
class Emitter {
  readonly refs: unknown[] = [];
  private locals = 0;

  ref(value: unknown): string {
    this.refs.push(value);
    return `r[${this.refs.length - 1}]`;
  }

  /** A number as a literal (String round-trips every finite double), so the engine can fold it. */
  number(value: number): string {
    return Number.isFinite(value) ? `(${String(value)})` : this.ref(value);
  }

  local(): string {
    return `t${this.locals++}`;
  }
}

function generate(schema: unknown): FastCheck | null {
  const emitter = new Emitter();
  const body = emit(schema, 'v', emitter);
  if (body === null) return null;
  // Generated from schema definitions only, never from data.
  return new Function('r', 'codePoints', `return function fastCheck(v) {\n${body}\nreturn true;\n}`)(emitter.refs, codePointLength) as FastCheck;
}

/** Statements that return false when `x` fails `schema`, or null for anything not known to be checked exactly as zod does. */
function emit(schema: unknown, x: string, e: Emitter): string | null {
  const { def, traits } = internals(schema);
  if (UNSUPPORTED_TRAITS.some((t) => traits.has(t)) || def.coerce === true) return null;
  const plain = def.checks === undefined || def.checks.length === 0;
  switch (def.type) {
    case 'string': return emitString(def, x, e);
    case 'number': return emitNumber(def, x, e);
    case 'array': return emitArray(def, x, e);
    case 'object': return plain ? emitObject(def, x, e) : null;
    case 'record': return plain ? emitRecord(def, x, e) : null;
    case 'boolean': return plain ? `if (typeof ${x} !== 'boolean') return false;` : null;
    case 'unknown': return plain ? '' : null;
    case 'literal': return plain ? `if (!${e.ref(new Set(def.values as unknown[]))}.has(${x})) return false;` : null;
    case 'enum': {
      const values = Object.values(def.entries as Record<string, unknown>);
      return plain && values.every((v) => typeof v === 'string') ? `if (!${e.ref(new Set(values))}.has(${x})) return false;` : null;
    }
    case 'optional':
    case 'nullable': {
      const inner = plain ? emit(def.innerType, x, e) : null;
      return inner === null ? null : `if (${x} !== ${def.type === 'optional' ? 'undefined' : 'null'}) {\n${inner}\n}`;
    }
    case 'union': {
      // Each option is its own function: an option's early `return false` must not end the union.
      const options = (def.options as unknown[]).map(generate);
      if (!plain || options.some((o) => o === null)) return null;
      return `if (!(${options.map((o) => `${e.ref(o)}(${x})`).join(' || ')})) return false;`;
    }
    default: return null;
  }
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

function emitString(def: Def, x: string, e: Emitter): string | null {
  const lines = [`if (typeof ${x} !== 'string') return false;`];
  const patterns: RegExp[] = [];
  if (def.format !== undefined) {
    if (!PATTERN_FORMATS.has(def.format as string) || !(def.pattern instanceof RegExp)) return null;
    patterns.push(def.pattern);
  }
  for (const { _zod: { def: check } } of def.checks ?? []) {
    const { minimum, maximum } = check;
    if (check.check === 'string_format' && check.format === 'regex' && check.pattern instanceof RegExp) patterns.push(check.pattern);
    // A code point is one or two units: count only when the unit count leaves it in doubt.
    else if (check.check === 'min_length' && typeof minimum === 'number') lines.push(`if (${x}.length < ${e.number(minimum)} || (${x}.length < ${e.number(2 * minimum)} && codePoints(${x}) < ${e.number(minimum)})) return false;`);
    else if (check.check === 'max_length' && typeof maximum === 'number') lines.push(`if (${x}.length > ${e.number(maximum)} && codePoints(${x}) > ${e.number(maximum)}) return false;`);
    else return null;
  }
  // Stateful (g, y) patterns would need lastIndex resets; none is used, so they are left to zod.
  if (patterns.some((p) => p.global || p.sticky)) return null;
  for (const pattern of patterns) lines.push(`if (!${e.ref(pattern)}.test(${x})) return false;`);
  return lines.join('\n');
}

function emitNumber(def: Def, x: string, e: Emitter): string | null {
  const lines = [`if (typeof ${x} !== 'number' || !Number.isFinite(${x})) return false;`];
  const own: CheckDef[] = def.format === undefined ? [] : [{ check: 'number_format', format: def.format as string }];
  for (const check of [...own, ...(def.checks ?? []).map((c) => c._zod.def)]) {
    const { value, inclusive } = check;
    if (check.check === 'number_format' && check.format === 'safeint') lines.push(`if (!Number.isSafeInteger(${x})) return false;`);
    else if (check.check === 'greater_than' && typeof value === 'number') lines.push(`if (!(${x} ${inclusive === true ? '>=' : '>'} ${e.number(value)})) return false;`);
    else if (check.check === 'less_than' && typeof value === 'number') lines.push(`if (!(${x} ${inclusive === true ? '<=' : '<'} ${e.number(value)})) return false;`);
    else return null;
  }
  return lines.join('\n');
}

function emitArray(def: Def, x: string, e: Emitter): string | null {
  const lines = [`if (!Array.isArray(${x})) return false;`];
  for (const { _zod: { def: check } } of def.checks ?? []) {
    if (check.check === 'min_length' && typeof check.minimum === 'number') lines.push(`if (${x}.length < ${e.number(check.minimum)}) return false;`);
    else if (check.check === 'max_length' && typeof check.maximum === 'number') lines.push(`if (${x}.length > ${e.number(check.maximum)}) return false;`);
    else return null;
  }
  const index = e.local();
  const item = e.local();
  const element = emit(def.element, item, e);
  if (element === null) return null;
  lines.push(`for (let ${index} = 0; ${index} < ${x}.length; ${index}++) {\nconst ${item} = ${x}[${index}];\n${element}\n}`);
  return lines.join('\n');
}

function emitObject(def: Def, x: string, e: Emitter): string | null {
  const shape = def.shape as Record<string, unknown>;
  const keys = Object.keys(shape);
  if (keys.includes('__proto__')) return null;
  // No catchall strips unknown keys, z.unknown() keeps them: both accept them. z.never() rejects them.
  const catchall = def.catchall === undefined ? 'any' : internals(def.catchall).def.type;
  if (catchall !== 'any' && catchall !== 'unknown' && catchall !== 'never') return null;
  const lines = [`if (typeof ${x} !== 'object' || ${x} === null || Array.isArray(${x})) return false;`];
  for (const key of keys) {
    const field = e.local();
    const check = emit(shape[key], field, e);
    if (check === null) return null;
    lines.push(`{\nconst ${field} = ${x}[${JSON.stringify(key)}];\n${check}\n}`);
  }
  // for...in, as zod does: inherited enumerable keys count as unknown too.
  if (catchall === 'never') lines.push(`for (const k in ${x}) if (!${e.ref(new Set(keys))}.has(k)) return false;`);
  return lines.join('\n');
}

/** Records with plain string keys only (z.record(z.string(), ...)): the open `attributes` objects. */
function emitRecord(def: Def, x: string, e: Emitter): string | null {
  const key = internals(def.keyType).def;
  if (key.type !== 'string' || key.format !== undefined || (key.checks !== undefined && key.checks.length > 0) || def.mode === 'loose') return null;
  const value = generate(def.valueType);
  if (value === null) return null;
  const anyValue = internals(def.valueType).def.type === 'unknown';
  return `if (!${e.ref(recordCheck(value, anyValue))}(${x})) return false;`;
}

function recordCheck(value: FastCheck, anyValue: boolean): FastCheck {
  return (v) => {
    // Stricter than zod's plain-object test: an object made by a literal or JSON.parse, no symbol keys.
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    const prototype = Object.getPrototypeOf(v);
    if ((prototype !== Object.prototype && prototype !== null) || Object.getOwnPropertySymbols(v).length > 0) return false;
    if (!anyValue) for (const k of Object.keys(v)) if (!value((v as Record<string, unknown>)[k])) return false;
    return true;
  };
}
