// The built binary: usage errors exit 2 with a message on stderr, every command has
// --help, and nothing is sent to the API when the input is already wrong.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../src/program.js';
import { Context } from '../src/context.js';
import { run, startFakeApi, tempHome, type FakeApi } from './helpers.js';

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi();
});
afterAll(() => api.close());
beforeEach(() => api.reset());

/** Every command path of the program, e.g. ['apps', 'keys', 'create']. */
function commandPaths(): string[][] {
  const sink = { write: () => true };
  const program = buildProgram(
    new Context({ stdout: sink, stderr: sink, stdin: process.stdin }, {}, () => ({})),
    {
      current: {},
    },
  );
  const out: string[][] = [];
  const walk = (cmd: Command, prefix: string[]) => {
    for (const sub of cmd.commands) {
      const p = [...prefix, sub.name()];
      out.push(p);
      walk(sub, p);
    }
  };
  walk(program, []);
  return out;
}

describe('usage errors exit 2', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['an unknown command', ['deploy'], /unknown command 'deploy'/],
    ['an unknown subcommand', ['apps', 'delete', 'x'], /unknown command 'delete'/],
    ['a group without a command', ['apps'], /Usage: svc apps/],
    ['an unknown option', ['apps', 'list', '--colour'], /unknown option '--colour'/],
    ['a missing argument', ['apps', 'get'], /missing required argument 'slug'/],
    ['a missing required option', ['translate', 'hello'], /required option '-t, --to <lang>'/],
    [
      'an option that is not a number',
      ['apps', 'list', '--limit', 'many'],
      /--limit must be a whole number/,
    ],
    ['a value outside the schema', ['apps', 'list', '--limit', '500'], /limit: Too big/i],
    ['an unknown category', ['apps', 'list', '--category', 'weather'], /category/],
    [
      'an invalid submit',
      ['apps', 'submit', '--slug', 'ok-slug', '--name', 'N', '--url', 'http://plain.test'],
      /url: URL must/,
    ],
    ['an update with nothing to change', ['apps', 'update', 'ci-app'], /nothing to update/],
    ['an unknown language', ['translate', 'hi', '--to', 'xx'], /targetLang/],
    ['an empty chat message', ['chat', 'send', '   '], /content/],
    ['a chat message over 200 characters', ['chat', 'send', 'x'.repeat(201)], /content: Too big/i],
    [
      'sites get with neither an id nor a URL',
      ['sites', 'get', 'localhost:8080'],
      /not a URL: localhost:8080 \(svc sites get takes a site id or the site's URL\)/,
    ],
    ['an invalid report reason', ['apps', 'report', 'ci-app', '--reason', 'boring'], /reason/],
    ['a bad base URL', ['--base-url', 'ftp://x', 'apps', 'list'], /invalid base URL/],
  ];

  it.each(cases)('%s', async (_name, args, message) => {
    const res = await run(args, { env: { SVC_BASE_URL: api.url } });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
    expect(api.requests).toEqual([]);
  });
});

describe('invalid manifests exit 2 before any request', () => {
  const write = (content: string) => {
    const file = path.join(tempHome(), 'app.json');
    writeFileSync(file, content);
    return file;
  };

  it.each([
    ['not JSON', '{ "slug": ', /not JSON/],
    ['not an object', '["x"]', /expected a JSON object/],
    ['missing required fields', '{ "slug": "ci-app" }', /name: .*\n.*url: /s],
    ['an http URL', '{ "slug": "ci-app", "name": "A", "url": "http://a.test" }', /url: URL must/],
    [
      'a bad slug',
      '{ "slug": "CI App", "name": "A", "url": "https://a.test" }',
      /slug: Slug must be lower-case/,
    ],
    [
      'an unknown field (a typo)',
      '{ "slug": "ci-app", "name": "A", "url": "https://a.test", "desciption": "x" }',
      /desciption/,
    ],
    [
      'a bad colour',
      '{ "slug": "ci-app", "name": "A", "url": "https://a.test", "icon_gradient_from": "red" }',
      /icon_gradient_from: Colour must be #rrggbb/,
    ],
  ])('%s', async (_name, content, message) => {
    const file = write(content);
    const res = await run(['apps', 'submit', '--from', file], {
      env: { SVC_BASE_URL: api.url, SVC_API_KEY: 'svc_live_x' },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/invalid manifest/);
    expect(res.stderr).toMatch(message);
    expect(api.requests).toEqual([]);
  });

  it('a manifest file that does not exist', async () => {
    const res = await run(['apps', 'submit', '--from', '/nonexistent/app.json'], {
      env: { SVC_BASE_URL: api.url },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/cannot read \/nonexistent\/app.json: ENOENT/);
  });

  it('--from with field options', async () => {
    const file = write('{}');
    const res = await run(['apps', 'submit', '--from', file, '--slug', 'x'], {
      env: { SVC_BASE_URL: api.url },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--from cannot be combined with field options \(slug\)/);
  });
});

describe('--help', () => {
  const paths = commandPaths();

  it('the program has every command of the issue', () => {
    const names = paths.map((p) => p.join(' '));
    for (const expected of [
      'apps submit',
      'apps update',
      'apps get',
      'apps list',
      'apps report',
      'apps keys create',
      'apps keys list',
      'apps keys revoke',
      'sites submit',
      'sites list',
      'sites get',
      'sites boost',
      'sites claim',
      'translate',
      'chat send',
      'chat tail',
      'login',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it.each(paths.map((p) => [p.join(' '), p] as [string, string[]]))(
    'svc %s --help exits 0 with its usage',
    async (_name, p) => {
      const res = await run([...p, '--help']);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(new RegExp(`^Usage: svc ${p.join(' ')}`));
      expect(res.stderr).toBe('');
    },
  );

  it('svc help <command> exits 0 like --help', async () => {
    const res = await run(['help', 'apps']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: svc apps/);
    const nested = await run(['apps', 'help', 'list']);
    expect(nested.code).toBe(0);
    expect(nested.stdout).toMatch(/^Usage: svc apps list/);
  });

  it('svc --help names the environment and the exit codes', async () => {
    const res = await run(['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/SVC_API_KEY/);
    expect(res.stdout).toMatch(/SVC_BASE_URL/);
    expect(res.stdout).toMatch(/Exit codes: 0 ok, 1 .*, 2 usage error/);
  });

  it('svc --version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const res = await run(['--version']);
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(pkg.version);
  });
});
