import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { graphDbPath, PRIVATE_FILE_MODE, writeFileAtomic, type DataDirLayout } from '../platform/storage/index.js';
import { STATE_IDS_LIMIT } from './compile-since.js';
import type { CompileState } from './types.js';

/** How many compiles' states a website keeps: a publish refused by a gate does not lose the live version's. */
const KEPT_STATES = 4;

const CompileStateSchema = z.strictObject({
  nodeVersion: z.string().min(1),
  contextKey: z.string().regex(/^[0-9a-f]{64}$/),
  graphId: z.string().min(1),
  seq: z.number().int().nonnegative(),
  editorial: z.number().int().nonnegative(),
  rejectedChunks: z.array(z.string()).max(STATE_IDS_LIMIT).nullable(),
  rejectedFacts: z.array(z.string()).max(STATE_IDS_LIMIT).nullable(),
  withheldFacts: z.array(z.string()).max(STATE_IDS_LIMIT).nullable(),
  attributesWithheld: z.array(z.string()).max(STATE_IDS_LIMIT).nullable(),
  rejectedEntities: z.array(z.string()).max(STATE_IDS_LIMIT).nullable(),
});
const StateFileSchema = z.strictObject({ states: z.array(CompileStateSchema).max(KEPT_STATES) });

/**
 * Beside the website's graph file, so it goes with it (deleteGraphFiles); a backup leaves it out,
 * so a restored graph is compiled whole once.
 */
export function compileStatePath(layout: DataDirLayout, websiteId: string): string {
  return `${graphDbPath(layout, websiteId)}-compile-state.json`;
}

/** The kept states, newest first; none when the file is missing or not one this code wrote (a compile then reads every chunk). */
function readStates(file: string): CompileState[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  try {
    const parsed = StateFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.states : [];
  } catch {
    return [];
  }
}

/** The state of the compile of node version `nodeVersion`, when kept. */
export function readCompileState(file: string, nodeVersion: string): CompileState | undefined {
  return readStates(file).find((state) => state.nodeVersion === nodeVersion);
}

/** Keeps `state` first, with the newest others up to KEPT_STATES (the file written whole or not at all). */
export function keepCompileState(file: string, state: CompileState): void {
  const states = [state, ...readStates(file).filter((s) => s.nodeVersion !== state.nodeVersion)].slice(0, KEPT_STATES);
  writeFileAtomic(file, `${JSON.stringify({ states })}\n`, { mode: PRIVATE_FILE_MODE });
}
