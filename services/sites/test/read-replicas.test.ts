// The sites API on a real primary and streaming replica (the kit's replica harness), through
// its routes: the public reads land on the replica, a submitter and a bookmarker see their
// own change at once while another caller still reads the replica, a site submitted a
// moment ago has its detail page, and a replica that stops moves the reads to the primary
// without an error while /readyz stays 200, degraded.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { opsHandlerOf } from '@svc/service-kit';
import { eventually, startReplicaCluster, type TestReplicaCluster } from '@svc/service-kit/testing';
import type { Site } from '@svc/types';
import { nextIp, startHarness, type Harness } from './api-harness.js';
import type { SitesReadName } from '../src/store/read-routing.js';

let cluster: TestReplicaCluster;
let h: Harness;
let n = 0;

beforeAll(async () => {
  cluster = await startReplicaCluster();
  h = await startHarness({ replicas: { cluster, maxLagMs: 10_000 } });
  await replicaInUse();
}, 90_000);

afterAll(async () => {
  await h?.close();
  await cluster?.stop();
});

const replicaInUse = () =>
  eventually(() => (h.reads.monitor!.views()[0]!.usable ? true : undefined), {
    what: 'the replica in use',
  });

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

/** Reads so far, by where they went. */
async function readsOf(read: SitesReadName): Promise<{ primary: number; replica: number }> {
  const { values } = await h.metrics.registry.getSingleMetric('db_reads_total')!.get();
  const of = (target: string) =>
    values.find((v) => v.labels.read === read && v.labels.target === target)?.value ?? 0;
  return { primary: of('primary'), replica: of('replica') };
}

/** How `read` went during `action`: the change in each count. */
async function during(read: SitesReadName, action: () => Promise<unknown>) {
  const before = await readsOf(read);
  await action();
  const after = await readsOf(read);
  return { primary: after.primary - before.primary, replica: after.replica - before.replica };
}

async function submit(cookie?: string): Promise<Site> {
  const req = request(h.app).post('/api/sites').set('X-Forwarded-For', nextIp());
  const res = await (cookie ? req.set('Cookie', cookie) : req).send({
    url: `${h.website.origin}/replica-${n++}`,
  });
  expect(res.status).toBe(201);
  return res.body.site as Site;
}

describe('sites reads on a read replica', () => {
  it('serves the listing, a detail and the sitemap from the replica', async () => {
    const site = await submit();
    await replicaCaughtUp();

    let listed: Site[] = [];
    expect(
      await during('listSites', async () => {
        const res = await request(h.app).get('/api/sites?sort=recent');
        expect(res.status).toBe(200);
        listed = res.body.sites;
      }),
    ).toEqual({ primary: 0, replica: 2 }); // the page and its count
    expect(listed.map((s) => s.id)).toContain(site.id);

    expect(
      await during('siteDetail', async () => {
        const res = await request(h.app).get(`/api/sites/${site.id}`);
        expect(res.status).toBe(200);
        expect(res.body.site.id).toBe(site.id);
      }),
    ).toEqual({ primary: 0, replica: 1 });

    expect(
      await during('sitemap', async () => {
        const res = await request(h.app).get('/sitemap.xml');
        expect(res.text).toContain(`/site/${site.id}<`);
      }),
    ).toEqual({ primary: 0, replica: 1 });
  });

  it('shows a caller their own submission and bookmark at once, another caller the replica', async () => {
    const alice = h.sessionCookie({ id: `alice-${n}` });
    const bob = h.sessionCookie({ id: `bob-${n}` });
    await cluster.pauseReplay();
    try {
      const site = await submit(alice);

      // alice: her submission, from the primary (the replica has not replayed it).
      const mine = await during('mySubmissions', async () => {
        const res = await request(h.app).get('/api/sites/my-submissions').set('Cookie', alice);
        expect(res.body.sites.map((s: Site) => s.id)).toEqual([site.id]);
      });
      expect(mine).toEqual({ primary: 1, replica: 0 });
      // bob wrote nothing: the replica.
      const his = await during('mySubmissions', async () => {
        const res = await request(h.app).get('/api/sites/my-submissions').set('Cookie', bob);
        expect(res.body.sites).toEqual([]);
      });
      expect(his).toEqual({ primary: 0, replica: 1 });

      // Her bookmark, at once.
      const added = await request(h.app)
        .post('/api/bookmarks')
        .set('Cookie', alice)
        .send({ site_id: site.id });
      expect(added.status).toBe(201);
      const res = await request(h.app).get('/api/bookmarks').set('Cookie', alice);
      expect(res.body.bookmarks.map((b: { site_id: string }) => b.site_id)).toEqual([site.id]);

      // Anyone opening the new site's page: the replica misses it, the primary has it.
      const detail = await during('siteDetail', async () => {
        expect((await request(h.app).get(`/api/sites/${site.id}`)).status).toBe(200);
      });
      expect(detail).toEqual({ primary: 1, replica: 1 });

      // The listing is loaded after this process's write: from the primary, with the site.
      const listing = await during('listSites', async () => {
        const page = await request(h.app).get('/api/sites?sort=recent');
        expect(page.body.sites[0].id).toBe(site.id);
      });
      expect(listing).toEqual({ primary: 2, replica: 0 });
    } finally {
      await cluster.resumeReplay();
    }
    // Once the replica has replayed her writes, her reads go there.
    await eventually(
      async () => {
        const d = await during('mySubmissions', () =>
          request(h.app).get('/api/sites/my-submissions').set('Cookie', alice),
        );
        return d.replica === 1 ? true : undefined;
      },
      { what: "alice's reads on the replica" },
    );
  });

  it('reads the primary without an error when the replica stops; /readyz 200, degraded', async () => {
    const site = await submit();
    await replicaCaughtUp();
    const ops = opsHandlerOf(h.app)!;
    await cluster.stopReplica();
    try {
      const moved = await during('listSites', async () => {
        const res = await request(h.app).get('/api/sites?sort=recent');
        expect(res.status).toBe(200);
        expect(res.body.sites.map((s: Site) => s.id)).toContain(site.id);
      });
      expect(moved.primary).toBe(2);
      expect((await request(h.app).get(`/api/sites/${site.id}`)).status).toBe(200);
      const ready = await request(ops).get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'degraded',
        checks: { postgres: 'ok', redis: 'ok', postgres_replicas: 'degraded' },
        degraded: { postgres_replicas: expect.stringContaining('down') },
      });
      expect((await request(h.app).get('/readyz')).status).toBe(200);
    } finally {
      await cluster.startReplica();
    }
    await replicaInUse();
    expect((await request(opsHandlerOf(h.app)!).get('/readyz')).body.status).toBe('ready');
  }, 60_000);
});
