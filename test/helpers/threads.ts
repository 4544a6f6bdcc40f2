import { readdirSync, readFileSync } from 'node:fs';

/** One thread of a process as Linux shows it (/proc/<pid>/task/<tid>): its name and the CPU time it used, in clock ticks (user + system). */
export interface ThreadCpu {
  tid: number;
  name: string;
  ticks: number;
}

/** The threads of process `pid` (default this one) and their CPU time so far. Linux only. */
export function threadCpuTicks(pid: number | 'self' = 'self'): ThreadCpu[] {
  const dir = `/proc/${pid}/task`;
  return readdirSync(dir).flatMap((tid) => {
    try {
      const stat = readFileSync(`${dir}/${tid}/stat`, 'utf8');
      // Fields after the name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [
        {
          tid: Number(tid),
          name: readFileSync(`${dir}/${tid}/comm`, 'utf8').trim(),
          ticks: Number(fields[11]) + Number(fields[12]),
        },
      ];
    } catch {
      return []; // the thread ended between the listing and the read
    }
  });
}
