import { describe, expect, it } from 'vitest';
import { environmentWithMallocSettings, type MallocFacts } from '../../src/cli/malloc-settings.js';

const linux: MallocFacts = { platform: 'linux', env: { PATH: '/usr/bin' }, canReplaceProcess: true, glibc: () => true };

describe('environmentWithMallocSettings: when `nodectl serve` starts itself again', () => {
  it('on Linux with glibc and process.execve, adds a fixed 128 KiB mmap threshold and keeps the rest', () => {
    expect(environmentWithMallocSettings(linux)).toEqual({ PATH: '/usr/bin', MALLOC_MMAP_THRESHOLD_: '131072' });
  });

  it('keeps a threshold the operator set, whatever its value (also what stops a second start)', () => {
    for (const value of ['65536', '131072', ''])
      expect(environmentWithMallocSettings({ ...linux, env: { MALLOC_MMAP_THRESHOLD_: value } })).toBeUndefined();
  });

  it('goes on as is without process.execve (Node 20), on another C library, or off Linux', () => {
    expect(environmentWithMallocSettings({ ...linux, canReplaceProcess: false })).toBeUndefined();
    expect(environmentWithMallocSettings({ ...linux, glibc: () => false })).toBeUndefined();
    expect(environmentWithMallocSettings({ ...linux, platform: 'darwin' })).toBeUndefined();
  });

  it('asks for the C library (a diagnostic report, a few ms) only when everything else allows the restart', () => {
    const glibc = () => {
      throw new Error('the C library was asked');
    };
    expect(environmentWithMallocSettings({ ...linux, canReplaceProcess: false, glibc })).toBeUndefined();
    expect(
      environmentWithMallocSettings({ ...linux, env: { MALLOC_MMAP_THRESHOLD_: '131072' }, glibc }),
    ).toBeUndefined();
    expect(() => environmentWithMallocSettings({ ...linux, glibc })).toThrow('the C library was asked');
  });
});
