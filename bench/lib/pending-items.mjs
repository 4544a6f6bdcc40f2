// How many accepted items a website's graph has yet to process, read from outside the daemon.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * A counter of the items accepted and not yet processed: rows still in the inbox (not moved into
 * the graph yet) plus raw items pending. The inbox is read first: a row is committed into the
 * graph before it leaves the inbox, so a row that moves between the two reads is counted once or
 * twice, never missed. A tree older than the inbox has no inbox file (counted as empty).
 * Both counts read indexes only (raw_items_pending is a partial index), never the bodies.
 */
export function pendingItemsCounter(graphFile) {
  const graph = new Database(graphFile, { readonly: true, fileMustExist: true });
  const rawPending = graph.prepare(`SELECT COUNT(*) FROM raw_items WHERE state = 'pending'`).pluck();
  const inboxFile = graphFile.replace(/\.sqlite$/, '.inbox.sqlite');
  let inbox;
  let inboxCount;
  const count = () => {
    if (inbox === undefined && existsSync(inboxFile)) {
      inbox = new Database(inboxFile, { readonly: true, fileMustExist: true });
      inboxCount = inbox.prepare('SELECT COUNT(*) FROM inbox_items').pluck();
    }
    return (inboxCount?.get() ?? 0) + rawPending.get();
  };
  /** Closes both files (the graph connection stays usable until then). */
  const close = () => {
    inbox?.close();
    graph.close();
  };
  return { count, graph, close };
}
