// Pages in GBK, Big5 and Shift_JIS, declared in the Content-Type header or only in a
// <meta> tag, are stored as the right Unicode text by the worker.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SCRAPE_QUEUE, enqueueScrape } from '../src/worker/queues.js';
import {
  createWorkerEnv,
  htmlPage,
  startFakeWebsite,
  waitForTagged,
  type FakeWebsite,
  type WorkerEnv,
} from './worker-harness.js';

// Encoded by hand (no encoder library): each decodes to the text beside it.
const SAMPLES = {
  gbk: { bytes: Buffer.from('d6d0cec4cdf8d5be', 'hex'), text: '中文网站' },
  big5: { bytes: Buffer.from('a4a4a4e5baf4afb8', 'hex'), text: '中文網站' },
  shift_jis: { bytes: Buffer.from('93fa967b8cea835483438367', 'hex'), text: '日本語サイト' },
} as const;

const page = (meta: string, bytes: Buffer) =>
  Buffer.concat([
    Buffer.from(`<html><head>${meta}<title>`),
    bytes,
    Buffer.from('</title><meta name="description" content="'),
    bytes,
    Buffer.from(' - ok"></head><body></body></html>'),
  ]);

let env: WorkerEnv;
let web: FakeWebsite;

beforeAll(async () => {
  env = await createWorkerEnv();
  web = await startFakeWebsite();
  for (const [charset, { bytes }] of Object.entries(SAMPLES)) {
    web.route(`/${charset}/header`, htmlPage(page('', bytes), `text/html; charset=${charset}`));
    web.route(
      `/${charset}/meta`,
      htmlPage(page(`<meta charset="${charset}">`, bytes), 'text/html'),
    );
    web.route(
      `/${charset}/http-equiv`,
      htmlPage(
        page(`<meta http-equiv="Content-Type" content="text/html; charset=${charset}">`, bytes),
        'text/html',
      ),
    );
  }
  env.startWorkers({ OUTBOUND_ALLOW_HOSTS: web.host });
});

afterAll(async () => {
  await env?.close();
  await web?.close();
});

describe('charset decoding', () => {
  const cases = Object.keys(SAMPLES).flatMap((charset) =>
    ['header', 'meta', 'http-equiv'].map(
      (where) => [charset as keyof typeof SAMPLES, where] as const,
    ),
  );

  it.each(cases)('%s declared in the %s', async (charset, where) => {
    const id = await env.insertSite(web.url(`/${charset}/${where}`));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    const site = await waitForTagged(env.db, id);
    expect(site.title).toBe(SAMPLES[charset].text);
    expect(site.description).toBe(`${SAMPLES[charset].text} - ok`);
    expect(site.scrapeStatus).toBe('done');
  });
});
