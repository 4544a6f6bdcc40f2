import { describe, expect, it } from 'vitest';
import { formatPublishSummary } from '../../src/cli/commands/publish-command.js';
import { formatValidationReport } from '../../src/compiler/index.js';

// Issue 37 item 4: one meaning per count. `files` as the API lists them (every file but
// manifest.json), `records` as the API's recordCount (knowledge records, not feed lines).
const file = (path: string, state: 'uploaded' | 'carried') => ({ path, bytes: 10, state });

describe('the counts publish and validate print', () => {
  it('publish: the parts add up to the files, and manifest.json is named (it said "19 (17 uploaded, 1 carried forward)")', () => {
    const files = [
      ...Array.from({ length: 17 }, (_, i) => file(`f${i}.jsonl`, 'uploaded')),
      file('llms.txt', 'carried'),
    ];
    const text = formatPublishSummary(
      {
        versionUlid: '01J00000000000000000000000',
        versionLabel: '2026-11-28.1',
        previousVersion: null,
        dryRun: false,
        alreadyLive: false,
        files,
        changes: [],
        recordCount: 135,
        bytesUploaded: 170,
        bytesCarried: 10,
        publicUrl: 'http://127.0.0.1:8787/nodes/example.com/manifest.json',
      },
      'fs',
    );
    expect(text).toContain('files: 18 files and manifest.json (17 uploaded, 1 carried forward), records: 135');
  });

  it('validate: the same words, and records are the knowledge records (it said "340 records" for 135)', () => {
    const text = formatValidationReport({
      ok: true,
      location: 'node/',
      nodeVersion: '01J00000000000000000000000',
      nodeVersionLabel: '2026-11-28.1',
      domain: 'example.com',
      files: 19,
      records: 340,
      recordCount: 135,
      errors: [],
      warnings: [],
      counts: {},
      truncated: false,
    });
    expect(text).toBe(
      'valid: node/ (node 01J00000000000000000000000, 2026-11-28.1, example.com): 18 files and manifest.json, 135 records (340 JSONL lines in all)',
    );
  });
});
