// Reading a benchmark's daemon from /proc (Linux; null elsewhere): CPU time, peak memory, idleness.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The unit of /proc/<pid>/stat's times. */
export function clockTicksPerSecond() {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
}

/**
 * Waits until the started daemon is idle: it used under a tenth of a core over the last 300 ms
 * (its warm start done, docs/graph.md "A warm start"), at most 20 s. Resolves how long it
 * waited, or null where /proc does not tell (not Linux). --no-settle skips it.
 */
export async function settle(daemonPid, ticksPerSecond) {
  const start = performance.now();
  let last = cpuSnapshot(daemonPid, ticksPerSecond).daemon;
  if (last === null) return null;
  while (performance.now() - start < 20_000) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = cpuSnapshot(daemonPid, ticksPerSecond).daemon;
    if (now - last < 30) break;
    last = now;
  }
  return Math.round(performance.now() - start);
}
/**
 * CPU time used so far, in ms: by the whole machine (every core, os.cpus()), by the daemon (all
 * its threads: /proc/<pid>/stat, Linux only, else null) and by this process (pushing, polling).
 */
export function cpuSnapshot(daemonPid, ticksPerSecond) {
  const machine = cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0);
  let daemon = null;
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${daemonPid}/stat`, 'utf8').split(') ')[1].split(' ');
    daemon = ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    /* not Linux */
  }
  const own = process.cpuUsage();
  return { machine, daemon, bench: (own.user + own.system) / 1000 };
}

/** The daemon's peak resident memory so far in MB (VmHWM of /proc/<pid>/status; field 'VmRSS': now), or null where /proc does not tell. */
export function daemonPeakRssMb(daemonPid, field = 'VmHWM') {
  try {
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${daemonPid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  } catch {
    return null;
  }
}

/**
 * The daemon's threads over a stage, by thread name: time on a core and time runnable but waiting
 * for one (/proc/<pid>/task/<tid>/schedstat, Linux only). A thread that ends takes its figures with
 * it, so sample() about once a second: each thread counts what it had at its last sample. The main
 * thread (tid = pid) is named "main"; libuv's threads keep the process's name. start() opens a stage,
 * report(ms) closes it: per name, threads, on_cpu_s, runqueue_s and busy_pct (on a core, % of the stage).
 */
export function threadClock(daemonPid) {
  const read = () => {
    const now = new Map();
    let tids;
    try {
      tids = readdirSync(`/proc/${daemonPid}/task`);
    } catch {
      return now;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/${daemonPid}/task/${tid}/stat`, 'utf8');
        const [onCpuNs, waitNs] = readFileSync(`/proc/${daemonPid}/task/${tid}/schedstat`, 'utf8')
          .split(' ')
          .map(Number);
        const name = tid === String(daemonPid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        now.set(tid, { name, onCpuNs, waitNs });
      } catch {
        /* ended meanwhile */
      }
    }
    return now;
  };
  let before = new Map();
  let last = new Map();
  return {
    sample() {
      for (const [tid, t] of read()) last.set(tid, t);
    },
    start() {
      // Only the threads alive now: one that ended in the last stage is not counted in this one.
      last = read();
      before = new Map(last);
    },
    report(stageMs) {
      this.sample();
      const byName = new Map();
      for (const [tid, t] of last) {
        const b = before.get(tid) ?? { onCpuNs: 0, waitNs: 0 };
        const g = byName.get(t.name) ?? { name: t.name, threads: 0, onCpuNs: 0, waitNs: 0 };
        g.threads += 1;
        g.onCpuNs += t.onCpuNs - b.onCpuNs;
        g.waitNs += t.waitNs - b.waitNs;
        byName.set(t.name, g);
      }
      return [...byName.values()]
        .filter((g) => g.onCpuNs + g.waitNs > 0)
        .sort((a, b) => b.onCpuNs - a.onCpuNs || (a.name < b.name ? -1 : 1))
        .map((g) => ({
          name: g.name,
          threads: g.threads,
          on_cpu_s: +(g.onCpuNs / 1e9).toFixed(1),
          runqueue_s: +(g.waitNs / 1e9).toFixed(1),
          busy_pct: +((g.onCpuNs / 1e6 / stageMs) * 100).toFixed(1),
        }));
    },
  };
}
