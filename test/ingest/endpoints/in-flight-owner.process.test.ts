import { execFileSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isOwnerGone, PROCESS_OWNER } from '../../../src/ingest/endpoints/stores/in-flight-owner.js';

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(
    execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }),
  );
}

describe('the owner of an in-flight idempotency record', () => {
  it('is this host, this pid and a per-start ulid', () => {
    expect(PROCESS_OWNER).toMatch(
      new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${process.pid}:[0-9A-HJKMNP-TV-Z]{26}$`),
    );
  });

  it('is gone when its pid on this host has exited, or when it was an earlier life of this pid', () => {
    expect(isOwnerGone(`${hostname()}:${deadPid()}:01J00000000000000000000000`)).toBe(true);
    expect(isOwnerGone(`${hostname()}:${process.pid}:01J00000000000000000000000`)).toBe(true);
  });

  it('is alive when it is this process or a running pid (the parent of this test), and never judged on another host or when unreadable', () => {
    expect(isOwnerGone(PROCESS_OWNER)).toBe(false);
    expect(isOwnerGone(`${hostname()}:${process.ppid}:01J00000000000000000000000`)).toBe(false);
    expect(isOwnerGone(`another-host.example:${deadPid()}:01J00000000000000000000000`)).toBe(false);
    for (const owner of ['', 'garbage', `${hostname()}:notapid:X`, `${hostname()}:-5:X`])
      expect(isOwnerGone(owner)).toBe(false);
  });
});
