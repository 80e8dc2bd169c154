// app-store on a real primary and streaming replica (the kit's replica harness), through its
// routes: the listing, search and a detail on the replica; an author's /me/apps shows their
// change at once (the primary until the replica has replayed it) while another author's
// reads stay on the replica; a paused replica past the bound is skipped (/readyz 200,
// degraded) and used again once it catches up.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { opsHandlerOf } from '@svc/service-kit';
import { eventually, startReplicaCluster, type TestReplicaCluster } from '@svc/service-kit/testing';
import { startHarness, type Harness } from './harness.js';
import type { AppStoreReadName } from '../src/store/read-routing.js';

let cluster: TestReplicaCluster;
let h: Harness;
let n = 0;
const MAX_LAG_MS = 1000;

beforeAll(async () => {
  cluster = await startReplicaCluster();
  h = await startHarness({ replicas: { cluster, maxLagMs: MAX_LAG_MS }, rateLimitScale: 100 });
}, 90_000);

afterAll(async () => {
  await h?.close();
  await cluster?.stop();
});

async function readsOf(read: AppStoreReadName): Promise<{ primary: number; replica: number }> {
  const { values } = await h.metrics.registry.getSingleMetric('db_reads_total')!.get();
  const of = (target: string) =>
    values.find((v) => v.labels.read === read && v.labels.target === target)?.value ?? 0;
  return { primary: of('primary'), replica: of('replica') };
}

async function during(read: AppStoreReadName, action: () => Promise<unknown>) {
  const before = await readsOf(read);
  await action();
  const after = await readsOf(read);
  return { primary: after.primary - before.primary, replica: after.replica - before.replica };
}

/** The replica in use and, as the monitor sees it, past everything written so far. */
async function replicaCaughtUp(): Promise<void> {
  const target = await h.reads.monitor!.primaryLsn();
  await eventually(
    () => {
      const [v] = h.reads.monitor!.views();
      return v!.usable && v!.replayLsn !== null && v!.replayLsn >= target ? true : undefined;
    },
    { what: 'the replica past the last write' },
  );
}

const newApp = () => {
  n += 1;
  return {
    slug: `replica-app-${n}`,
    name: `Replica app ${n}`,
    url: `https://replica-${n}.example.com`,
    description: 'zebra-striped listing entry',
    category: 'tools',
  };
};

describe('app-store reads on a read replica', () => {
  it('serves the listing, search and a detail from the replica', async () => {
    const author = h.user('lister');
    const body = newApp();
    expect((await h.submit(author, body)).status).toBe(201);
    await replicaCaughtUp();

    const listed = await during('listing', async () => {
      const all = await request(h.app).get('/api/v1/apps');
      expect(all.body.apps.map((a: { slug: string }) => a.slug)).toContain(body.slug);
      const found = await request(h.app).get('/api/v1/apps?q=zebra');
      expect(found.body.apps.map((a: { slug: string }) => a.slug)).toContain(body.slug);
    });
    expect(listed).toEqual({ primary: 0, replica: 4 }); // two pages, two totals
    expect(
      await during('appDetail', async () => {
        const res = await request(h.app).get(`/api/v1/apps/${body.slug}`);
        expect(res.body.app.name).toBe(body.name);
      }),
    ).toEqual({ primary: 0, replica: 1 });
    expect((await request(h.app).get('/api/v1/categories')).status).toBe(200);
  });

  it("shows an author's change on /me/apps at once; another author's reads stay on the replica", async () => {
    const alice = h.user('alice');
    const bob = h.user('bob');
    const body = newApp();
    expect((await h.submit(alice, body)).status).toBe(201);
    expect((await h.submit(bob, newApp())).status).toBe(201);
    await replicaCaughtUp();
    await cluster.pauseReplay();
    try {
      const patched = await request(h.app)
        .patch(`/api/v1/apps/${body.slug}`)
        .set('Cookie', alice.cookie)
        .send({ name: 'Renamed at once' });
      expect(patched.status).toBe(200);
      const mine = await during('myApps', async () => {
        const res = await request(h.app).get('/api/v1/me/apps').set('Cookie', alice.cookie);
        expect(res.body.apps.map((a: { name: string }) => a.name)).toEqual(['Renamed at once']);
      });
      expect(mine).toEqual({ primary: 1, replica: 0 });
      const his = await during('myApps', async () => {
        const res = await request(h.app).get('/api/v1/me/apps').set('Cookie', bob.cookie);
        expect(res.status).toBe(200);
        expect(res.body.apps).toHaveLength(1);
      });
      expect(his).toEqual({ primary: 0, replica: 1 });
      // The listing reloaded after this process's write: from the primary, renamed.
      const listing = await during('listing', async () => {
        const res = await request(h.app).get('/api/v1/apps?q=Renamed');
        expect(res.body.apps.map((a: { slug: string }) => a.slug)).toEqual([body.slug]);
      });
      expect(listing.replica).toBe(0);
    } finally {
      await cluster.resumeReplay();
    }
    // Once the replica is past her write, her /me/apps is read there, renamed.
    await eventually(
      async () => {
        let name = '';
        const d = await during('myApps', async () => {
          const res = await request(h.app).get('/api/v1/me/apps').set('Cookie', alice.cookie);
          name = res.body.apps[0].name;
        });
        return d.replica === 1 ? name : undefined;
      },
      { what: "alice's /me/apps on the replica" },
    ).then((name) => expect(name).toBe('Renamed at once'));
  });

  it('skips a paused replica past the bound, /readyz 200 degraded, and uses it again after resume', async () => {
    const author = h.user('paused');
    await replicaCaughtUp();
    const ops = opsHandlerOf(h.app)!;
    await cluster.pauseReplay();
    try {
      expect((await h.submit(author, newApp())).status).toBe(201);
      await eventually(() => (h.reads.monitor!.views()[0]!.usable ? undefined : true), {
        what: 'the replica skipped',
      });
      const moved = await during('appDetail', async () => {
        expect((await request(h.app).get('/api/v1/apps/replica-app-1')).status).toBe(200);
      });
      expect(moved).toEqual({ primary: 1, replica: 0 });
      const ready = await request(ops).get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('degraded');
      expect(ready.body.checks.postgres_replicas).toBe('degraded');
      expect(ready.body.degraded.postgres_replicas).toMatch(/behind by .* \(bound 1 s\)/);
    } finally {
      await cluster.resumeReplay();
    }
    await replicaCaughtUp();
    expect(
      await during('appDetail', () => request(h.app).get('/api/v1/apps/replica-app-1')),
    ).toEqual({ primary: 0, replica: 1 });
    expect((await request(ops).get('/readyz')).body.status).toBe('ready');
  });
});
