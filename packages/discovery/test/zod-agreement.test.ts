// The document's JSON Schemas accept exactly what the zod schemas accept, on samples at
// the edges (timestamps, enums, nulls, limits, strict bodies).
import { describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import * as contract from '@svc/types';
import { buildOpenApi } from '../src/openapi.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const doc = buildOpenApi({ baseUrl: 'https://svc.test' }) as Json;
const ajv = addFormats(new Ajv2020({ strict: false }));
ajv.addSchema({
  $id: 'urn:svc:doc',
  $defs: JSON.parse(
    JSON.stringify(doc.components.schemas).replaceAll(
      '"#/components/schemas/',
      '"urn:svc:doc#/$defs/',
    ),
  ),
});
const viaDocument = (name: string, value: unknown) =>
  ajv.validate({ $ref: `urn:svc:doc#/$defs/${name}` }, value);
const viaZod = (name: string, value: unknown) =>
  (contract as unknown as Record<string, { safeParse(v: unknown): { success: boolean } }>)[
    name
  ]!.safeParse(value).success;

const T = '2026-11-21T10:00:00.000Z';
const site = {
  id: 's1',
  url: 'https://example.com',
  title: 'example.com',
  description: '',
  favicon_url: null,
  og_image_url: null,
  domain: 'example.com',
  tags: ['工具'],
  submit_count: 1,
  click_count: 0,
  hot_score: 0.5,
  site_type: 'website',
  social_platform: null,
  social_username: null,
  boost_count: 0,
  is_claimed: false,
  is_promoted: false,
  first_submitted_at: T,
  last_activity_at: T,
};
const message = {
  id: 'm1',
  type: 'chat',
  content: 'hi',
  content_key: null,
  content_params: null,
  sender_name: 'Visitor from Tokyo',
  sender_location: 'JP|Tokyo',
  like_count: 0,
  created_at: T,
};

const SAMPLES: Array<[string, string, unknown]> = [
  ['Site', 'valid', site],
  [
    'Site',
    'profile',
    { ...site, site_type: 'profile', social_platform: 'github', social_username: 'octocat' },
  ],
  ['Site', 'unknown tag', { ...site, tags: ['tools'] }],
  ['Site', 'four tags', { ...site, tags: ['工具', '技术', '设计', '新闻'] }],
  ['Site', 'timestamp with offset', { ...site, first_submitted_at: '2026-11-21T10:00:00+02:00' }],
  ['Site', 'negative count', { ...site, click_count: -1 }],
  ['Site', 'missing field', { ...site, hot_score: undefined }],
  ['Site', 'extra field (open)', { ...site, rank: 3 }],
  ['ChatMessage', 'valid', message],
  ['ChatMessage', 'bad location', { ...message, sender_location: 'Tokyo' }],
  [
    'ChatMessage',
    'system with params',
    { ...message, type: 'system', content_key: 'k', content_params: { n: 1 } },
  ],
  ['ErrorResponse', 'with details', { error: 'Invalid request', details: [{ code: 'x' }] }],
  ['ErrorResponse', 'empty message', { error: '' }],
  ['TranslateBody', 'valid', { text: 'hello', targetLang: 'zh-TW' }],
  ['TranslateBody', 'too long', { text: 'x'.repeat(2001), targetLang: 'en' }],
  ['TranslateBody', 'unknown language', { text: 'hello', targetLang: 'it' }],
  ['UpdateAppBody', 'empty (no-op)', {}],
  ['UpdateAppBody', 'unknown field', { downloads: 5 }],
  ['UpdateAppBody', 'bad colour', { icon_gradient_from: 'red' }],
  ['SubmitAppBody', 'http url', { slug: 'my-app', name: 'My app', url: 'http://example.com' }],
  ['SubmitAppBody', 'valid', { slug: 'my-app', name: 'My app', url: 'https://example.com' }],
  ['SubmitAppBody', 'bad slug', { slug: 'My_App', name: 'My app', url: 'https://example.com' }],
  ['PostChatMessageBody', 'too long', { content: 'x'.repeat(201) }],
  ['SetUsernameBody', 'any script', { username: '名前です' }],
  ['SetUsernameBody', 'space', { username: 'a b c' }],
];

describe('zod and /openapi.json agree', () => {
  it.each(SAMPLES)('%s: %s', (name, _case, value) => {
    expect(doc.components.schemas[name]).toBeDefined();
    expect(viaDocument(name, value)).toBe(viaZod(name, value));
  });
});
