import { describe, expect, it } from 'vitest';
import { toPostgres } from '../../../src/platform/storage/sql-dialect.js';

describe('toPostgres: the control SQL written once, spelled for PostgreSQL', () => {
  it('numbers positional parameters in order, and a named parameter once however often it is used', () => {
    expect(toPostgres('SELECT a FROM t WHERE b = ? AND c > ? LIMIT ?')).toEqual({
      text: 'SELECT a FROM t WHERE b = $1 AND c > $2 LIMIT $3',
      names: [],
      positional: 3,
    });
    expect(toPostgres('DELETE FROM t WHERE o = :org OR p = @org OR q IN (SELECT x FROM u WHERE y = $site)')).toEqual({
      text: 'DELETE FROM t WHERE o = $1 OR p = $1 OR q IN (SELECT x FROM u WHERE y = $2)',
      names: ['org', 'site'],
      positional: 0,
    });
  });

  it('leaves quoted text, quoted names, comments and casts alone', () => {
    const sql = `SELECT '?' AS "a?", x::text FROM t -- what? :no\nWHERE y = ? /* @no */`;
    expect(toPostgres(sql).text).toBe(`SELECT '?' AS "a?", x::text FROM t -- what? :no\nWHERE y = $1 /* @no */`);
    expect(toPostgres(`SELECT 'it''s ?' FROM t WHERE a = ?`).text).toBe(`SELECT 'it''s ?' FROM t WHERE a = $1`);
  });

  it('quotes an output name in mixed case, which PostgreSQL would fold to lower case, and no type name', () => {
    expect(toPostgres('SELECT created_at AS createdAt, id AS id FROM users').text).toBe(
      'SELECT created_at AS "createdAt", id AS id FROM users',
    );
    expect(toPostgres('SELECT CAST(n AS BIGINT) AS n FROM t').text).toBe('SELECT CAST(n AS BIGINT) AS n FROM t');
  });

  it("spells SQLite's null-safe comparisons, instr, json_each and json_extract the PostgreSQL way", () => {
    expect(toPostgres('SELECT 1 FROM t WHERE id IS NOT :self AND b IS ? AND c IS NULL AND d IS NOT NULL').text).toBe(
      'SELECT 1 FROM t WHERE id IS DISTINCT FROM $1 AND b IS NOT DISTINCT FROM $2 AND c IS NULL AND d IS NOT NULL',
    );
    expect(toPostgres('SELECT 1 FROM t WHERE instr(a, b) > 0').text).toBe('SELECT 1 FROM t WHERE strpos(a, b) > 0');
    expect(toPostgres('DELETE FROM t WHERE id IN (SELECT value FROM json_each(:ids))').text).toBe(
      'DELETE FROM t WHERE id IN (SELECT value FROM json_array_elements_text(CAST($1 AS json)) AS json_each(value))',
    );
    expect(toPostgres('SELECT 1 FROM json_each(events) n WHERE n.value = ?').text).toBe(
      'SELECT 1 FROM json_array_elements_text(CAST(events AS json)) AS n(value) WHERE n.value = $1',
    );
    expect(toPostgres('SELECT n.value FROM json_each(?) AS n').text).toBe(
      'SELECT n.value FROM json_array_elements_text(CAST($1 AS json)) AS n(value)',
    );
    expect(toPostgres(`SELECT id FROM jobs WHERE json_extract(payload, '$.website_id') = ?`).text).toBe(
      `SELECT id FROM jobs WHERE (CAST(payload AS jsonb) ->> 'website_id') = $1`,
    );
  });

  it('casts a parameter tested for NULL (PostgreSQL cannot type it alone) and drops COLLATE NOCASE (citext columns)', () => {
    expect(toPostgres('SELECT 1 FROM t WHERE (? IS NULL OR s = ?) AND email = ? COLLATE NOCASE').text).toBe(
      'SELECT 1 FROM t WHERE (CAST($1 AS TEXT) IS NULL OR s = $2) AND email = $3 ',
    );
  });

  it('refuses SQL it cannot read rather than guess', () => {
    expect(() => toPostgres(`SELECT 'open FROM t`)).toThrow(/unclosed ' quote/);
    expect(() => toPostgres(`SELECT json_extract(payload, '$[0]') FROM t`)).toThrow(/'\$\.key' path/);
  });
});
