import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { GRAPH_WAL_AUTOCHECKPOINT_BYTES, GRAPH_WAL_KEPT_BYTES, type Db } from '../../platform/storage/index.js';
import { workerModuleUrl } from '../../platform/threads/index.js';

export interface CheckpointRequest {
  file: string;
}

export type CheckpointResponse = { file: string; log: number; checkpointed: number } | { file: string; error: string };

/**
 * The graph writer thread's WAL checkpoints, handed to a thread of their own (checkpoint-worker.ts):
 * in the writer, a checkpoint (copying the WAL's pages into the file, then an fsync) held up the
 * next batch. After each commit, a graph whose WAL file has reached the bound (GRAPH_WAL_AUTOCHECKPOINT_BYTES)
 * gets a PASSIVE checkpoint there, one at a time per file. The writer's connection checkpoints
 * itself only past four times the bound (handOff), as SQLite does inside a commit: a checkpoint
 * that ran while the writer wrote leaves the WAL in place (SQLite starts it over only at a write
 * that finds it all copied), and that fallback then copies what is left, and bounds the WAL if
 * the checkpoint thread falls behind or is gone. Past four times the bound nothing more is asked:
 * a request under way holds the checkpoint lock that the fallback needs, so asking on would let
 * the WAL grow as long as the two keep meeting.
 */
export class WalCheckpoints {
  private worker: Worker | undefined;
  private readonly inFlight = new Set<string>();
  /** Checkpoints asked for and answered so far. */
  readonly stats = { asked: 0, answered: 0, failed: 0 };

  constructor(
    private readonly url: URL = checkpointWorkerUrl(),
    private readonly boundBytes: number = GRAPH_WAL_AUTOCHECKPOINT_BYTES,
    /** What the WAL file is cut back to when SQLite starts it over, so that its size tells what it holds. */
    private readonly keptBytes: number = GRAPH_WAL_KEPT_BYTES,
  ) {}

  /** Where the writer's own checkpoint takes over, and the thread is asked nothing more. */
  private get fallbackBytes(): number {
    return 4 * this.boundBytes;
  }

  /** Sets a writer connection to leave its checkpoints to this thread, up to four times the bound. */
  handOff(db: Db): void {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma(`wal_autocheckpoint = ${Math.ceil(this.fallbackBytes / pageSize)}`);
    db.pragma(`journal_size_limit = ${this.keptBytes}`);
  }

  /** Call after each commit on `file`: asks for a checkpoint once its WAL file has reached the bound, up to four times it. */
  afterCommit(file: string): void {
    if (this.inFlight.has(file)) return;
    let bytes: number;
    try {
      bytes = statSync(`${file}-wal`).size;
    } catch {
      return;
    }
    if (bytes < this.boundBytes || bytes >= this.fallbackBytes) return;
    this.worker ??= this.start(this.url);
    this.inFlight.add(file);
    this.stats.asked++;
    this.worker.postMessage({ file } satisfies CheckpointRequest);
  }

  /** Ends the checkpoint thread (a checkpoint under way is left to the next one, or the fallback). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.inFlight.clear();
    await worker?.terminate();
  }

  private start(url: URL): Worker {
    const worker = new Worker(url);
    worker.on('message', (response: CheckpointResponse) => {
      this.inFlight.delete(response.file);
      if ('error' in response) this.stats.failed++;
      else this.stats.answered++;
    });
    // A thread that failed is started again at the next request; the fallback bounds the WAL meanwhile.
    const gone = () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.inFlight.clear();
    };
    worker.on('error', gone);
    worker.on('exit', gone);
    worker.unref();
    return worker;
  }
}

/** The checkpoint thread's module, next to this one in the build (workerModuleUrl). */
export function checkpointWorkerUrl(here: string = import.meta.url): URL {
  return workerModuleUrl(here, 'checkpoint-worker.js', 'the graph checkpoint thread');
}
