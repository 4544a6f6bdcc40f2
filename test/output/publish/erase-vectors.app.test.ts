import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_DB_OPTIONS } from '../../../src/ingest/graph/index.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { openDatabase } from '../../../src/platform/storage/index.js';
import { pageItem } from '../../ingest/endpoints/support.js';
import { DIMENSIONS, MODEL, seedVectors } from '../../compiler/vector-support.js';
import { createDeleteHarness, KEYS, type DeleteHarness } from './deletes-support.js';

// A gdpr_erasure with embeddings on: the vectors of the erased item's chunks were published in
// embeddings.f32, which holds no text the purge could match.
let h: DeleteHarness;
let erasedChunks: string[];

/** Stores a vector for every chunk the graph holds now (the provider is never reached). */
function embedAll(): void {
  const db = openDatabase(graphDbPath(h.services.layout, h.website.id), GRAPH_DB_OPTIONS);
  try {
    db.exec('DELETE FROM chunk_vectors');
    seedVectors(db);
    erasedChunks = db.prepare("SELECT id FROM chunks WHERE item_key LIKE '%person-1%'").pluck().all() as string[];
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  h = await createDeleteHarness({
    NODECTL_EMBEDDINGS_URL: 'http://127.0.0.1:9/v1/embeddings',
    NODECTL_EMBEDDINGS_MODEL: MODEL,
    NODECTL_EMBEDDINGS_DIMENSIONS: String(DIMENSIONS),
  });
  h.services.controlDb.prepare("UPDATE organizations SET plan = 'business' WHERE id = 'org_1'").run();
  h.website.plan = 'business';
}, 60_000);
afterAll(async () => h?.close());

describe('gdpr_erasure with the node carrying vectors', () => {
  it('deletes the vector files of the purged versions; the live one has no row of the erased chunks', async () => {
    await h.ingest([
      pageItem('page-1', 'Kettle K1 in steel, shipped from Hamburg to every city of the country.'),
      pageItem('person-1', 'Mallory Example writes for the shop and reviews every kettle we sell.'),
    ]);
    await h.runJobs();
    embedAll();
    expect(erasedChunks.length).toBeGreaterThan(0);
    const v1 = await h.publish();
    expect(v1.files.map((f) => f.path)).toContain('embeddings.f32');
    const rows = JSON.parse((await h.target.get(KEYS.version(v1.versionUlid, 'embeddings-manifest.json')))!.toString());
    expect(rows.vectors.map((v: { chunk_id: string }) => v.chunk_id)).toEqual(expect.arrayContaining(erasedChunks));

    h.advance(5_000);
    const result = await h.remove(['person-1'], 'gdpr_erasure');
    await h.runJobs();
    h.advance(60_000);
    await h.runJobs();
    expect(h.services.jobs.get(result.republish_job_id!)).toMatchObject({ state: 'succeeded' });

    const live = (await h.liveVersion())!;
    expect(live).not.toBe(v1.versionUlid);
    expect(await h.target.head(KEYS.version(v1.versionUlid, 'embeddings.f32'))).toBeUndefined();
    expect(await h.target.head(KEYS.version(v1.versionUlid, 'embeddings-manifest.json'))).toBeUndefined();
    const now = JSON.parse((await h.target.get(KEYS.version(live, 'embeddings-manifest.json')))!.toString());
    expect(now.status).toBe('computed');
    for (const id of erasedChunks) expect(now.vectors.map((v: { chunk_id: string }) => v.chunk_id)).not.toContain(id);
  });
});
