import { afterAll, describe, expect, it } from 'vitest';
import { createServices } from '../../../src/daemon/create-services.js';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { emitEvent } from '../../../src/control/events/emit.js';
import { readMasterKey } from '../../../src/platform/storage/data-dir.js';
import { createSubscription } from '../../../src/control/webhooks/subscriptions.js';
import { seedWebsite } from '../../helpers/app.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { makeTempDir } from '../../helpers/paths.js';
import { startReceiver, verifyWebhook, type Receiver } from './support.js';

const EVENTS = 300;
const temp = makeTempDir('nodectl-webhooks-kill-');
let receiver: Receiver | undefined;
const daemons: TestDaemon[] = [];
afterAll(async () => {
  for (const daemon of daemons) await daemon.stop('SIGKILL').catch(() => undefined);
  await receiver?.close();
  temp.cleanup();
});

const DAEMON_ENV = {
  NODECTL_FETCH_ALLOW_PRIVATE_ADDRESSES: 'true',
  NODECTL_JOB_LEASE_SECONDS: '2',
  NODECTL_JOB_LANE_DELIVERY_CONCURRENCY: '4',
};

describe('webhook deliveries survive kill -9', () => {
  it('after a kill -9 during a burst of deliveries and a restart, every event is delivered (duplicates allowed, none lost), each signature verified by standardwebhooks', async () => {
    receiver = await startReceiver();
    // The first 40 requests are answered; from the 41st the receiver holds them, so the kill below lands with most of the burst undelivered.
    const ANSWERED_BEFORE_KILL = 40;
    receiver.answer((_request, count) =>
      count <= ANSWERED_BEFORE_KILL ? { status: 200 } : { status: 200, hold: true },
    );
    const services = createServices(resolveConfig({ flags: { dataDir: temp.dir }, env: {} }));
    const site = await seedWebsite(services, 'example.com');
    const { secret } = createSubscription(
      services.controlDb,
      readMasterKey(services.layout),
      site.websiteId,
      { url: receiver.url, events: ['ingest.completed'], description: '' },
      Date.now(),
    );
    const first = await startTestDaemon({ dataDir: temp.dir, env: DAEMON_ENV });
    daemons.push(first);
    const ids: string[] = [];
    try {
      // The burst: events written beside the running daemon, as another process's changes would be.
      for (let i = 0; i < EVENTS; i++)
        ids.push(
          emitEvent(services.controlDb, {
            type: 'ingest.completed',
            website_id: site.websiteId,
            data: { job_id: `job_burst_${i}`, processed: i, failed: 0, skipped: 0, removed: 0, warned: 0 },
          })!,
        );
    } finally {
      services.close();
    }
    await receiver.until(() => receiver!.received.length > ANSWERED_BEFORE_KILL, 'deliveries to start', 60_000);
    expect(await first.stop('SIGKILL')).not.toBe(0);
    receiver.answer(() => ({ status: 200 }));
    const deliveredBeforeKill = new Set(receiver.received.map((r) => r.headers['webhook-id'])).size;
    expect(deliveredBeforeKill, 'the kill came in the middle of the burst').toBeLessThan(EVENTS);

    const second = await startTestDaemon({ dataDir: temp.dir, env: DAEMON_ENV });
    daemons.push(second);
    const delivered = () => new Set(receiver!.received.map((r) => r.headers['webhook-id']));
    await receiver.until(() => delivered().size >= EVENTS, `all ${EVENTS} events delivered`, 90_000);
    expect([...delivered()].sort()).toEqual([...ids].sort());
    for (const request of receiver.received)
      expect(verifyWebhook(secret, request).id).toBe(request.headers['webhook-id']);
    console.log(
      `kill -9: ${deliveredBeforeKill} of ${EVENTS} events delivered before the kill, ${receiver.received.length} requests in all (${receiver.received.length - EVENTS} duplicates)`,
    );
    await second.stop();
  }, 180_000);
});
