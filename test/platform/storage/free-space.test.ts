import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/platform/errors/app-error.js';
import { createFreeSpaceGuard, type StatfsReader } from '../../../src/platform/storage/free-space.js';

const MB = 1024 * 1024;

/** A statfs of a disk with `free()` MiB available to users, counting its calls. */
function fakeDisk(free: () => number) {
  let calls = 0;
  const statfs: StatfsReader = () => {
    calls++;
    return { bsize: 4096, bavail: Math.floor((free() * MB) / 4096) };
  };
  return { statfs, calls: () => calls };
}

function fakeClock() {
  let ms = 1_000_000;
  return { now: () => ms, advance: (by: number) => void (ms += by) };
}

describe('the free-space floor (minFreeDiskMb)', () => {
  it('passes above the floor and refuses below it with 503 service.storage_unavailable naming the figures and the setting', () => {
    let free = 300;
    const disk = fakeDisk(() => free);
    const guard = createFreeSpaceGuard({ dir: '/data', floorMb: 256, statfs: disk.statfs, ttlMs: 0 });
    expect(() => guard.assertAboveFloor()).not.toThrow();
    free = 12;
    let refused: unknown;
    try {
      guard.assertAboveFloor();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: 'service.storage_unavailable',
      status: 503,
      retryable: true,
      details: { reason: 'below_floor', free_mb: 12, floor_mb: 256 },
    });
    expect((refused as Error).message).toBe(
      "The data directory's disk has 12 MB free, below the floor of 256 MB; free space or lower NODECTL_MIN_FREE_DISK_MB.",
    );
  });

  it('0 turns the floor off: the disk is never read', () => {
    const disk = fakeDisk(() => 0);
    const guard = createFreeSpaceGuard({ dir: '/data', floorMb: 0, statfs: disk.statfs });
    expect(() => guard.assertAboveFloor()).not.toThrow();
    expect(disk.calls()).toBe(0);
  });

  it('keeps a reading above the floor for ttlMs, not one below it: a disk freed again is seen at the next request', () => {
    let free = 1000;
    const disk = fakeDisk(() => free);
    const clock = fakeClock();
    const guard = createFreeSpaceGuard({
      dir: '/data',
      floorMb: 256,
      statfs: disk.statfs,
      ttlMs: 1000,
      now: clock.now,
    });
    guard.assertAboveFloor();
    guard.assertAboveFloor();
    clock.advance(999);
    guard.assertAboveFloor();
    expect(disk.calls()).toBe(1);
    clock.advance(1);
    free = 100;
    expect(() => guard.assertAboveFloor()).toThrow(/100 MB free/);
    expect(() => guard.assertAboveFloor()).toThrow(/100 MB free/);
    expect(disk.calls()).toBe(3);
    free = 500;
    expect(() => guard.assertAboveFloor()).not.toThrow();
    expect(disk.calls()).toBe(4);
  });

  it('a disk that cannot be read (no statfs on this system) does not refuse anything', () => {
    const guard = createFreeSpaceGuard({
      dir: '/data',
      floorMb: 256,
      statfs: () => {
        throw Object.assign(new Error('ENOSYS: function not implemented, statfs'), { code: 'ENOSYS' });
      },
    });
    expect(() => guard.assertAboveFloor()).not.toThrow();
  });
});
