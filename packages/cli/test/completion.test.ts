// `svc completion bash|zsh|fish` (the built binary): each script covers every command and
// option of the program; the bash one is valid bash, registers itself with `complete`, and
// offers the right words at each command path (run in a real bash).
import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allNodes, commandTree, type CompletionTree } from '../src/completion/command-tree.js';
import { Context } from '../src/context.js';
import { buildProgram } from '../src/program.js';
import { run } from './helpers.js';

const DIR = mkdtempSync(path.join(tmpdir(), 'svc-completion-'));
const scripts: Record<string, string> = {};
let tree: CompletionTree;

beforeAll(async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const res = await run(['completion', shell]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    scripts[shell] = res.stdout;
  }
  writeFileSync(path.join(DIR, 'svc.bash'), scripts.bash!);
  const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
  tree = commandTree(buildProgram(new Context(io, {}, () => ({})), { current: {} }));
});

/** The words bash offers for `line` (the cursor at its end; a trailing space starts a word). */
function bashOffers(lines: string[]): string[][] {
  const calls = lines.map((line) => {
    const words = line.split(' ');
    const quoted = words.map((w) => `'${w}'`).join(' ');
    return `COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _svc_completion; echo "\${COMPREPLY[*]}"`;
  });
  const out = execFileSync(
    'bash',
    ['--norc', '-c', `source '${DIR}/svc.bash'\n${calls.join('\n')}`],
    {
      encoding: 'utf8',
    },
  );
  return out
    .split('\n')
    .slice(0, lines.length)
    .map((l) => (l ? l.split(' ') : []));
}

describe('svc completion bash', () => {
  it('is valid bash and registers the svc completion when sourced', () => {
    execFileSync('bash', ['-n', path.join(DIR, 'svc.bash')]);
    const out = execFileSync(
      'bash',
      ['--norc', '-c', `source '${DIR}/svc.bash' && complete -p svc`],
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe('complete -o default -F _svc_completion svc');
  });

  it('offers each command its subcommands and options, after global options too', () => {
    const [top, keys, wait, afterFrom, shells, prefix] = bashOffers([
      'svc ',
      'svc apps keys ',
      'svc --base-url http://localhost:8080 sites submit https://x.example --w',
      'svc apps submit --from ',
      'svc completion ',
      'svc mo',
    ]);
    expect(top).toEqual(
      expect.arrayContaining(['apps', 'sites', 'translate', 'chat', 'login', 'mod', 'completion']),
    );
    expect(keys).toEqual(['create', 'list', 'revoke', '--json', '--base-url', '--help']);
    expect(wait).toEqual(['--wait']);
    // A value follows: nothing from svc, so bash completes a file name.
    expect(afterFrom).toEqual([]);
    expect(shells).toEqual(['bash', 'zsh', 'fish', '--json', '--base-url', '--help']);
    expect(prefix).toEqual(['mod']);
  });

  it('at every command path, offers exactly its subcommands, its options and the global ones', () => {
    const nodes = allNodes(tree);
    const offers = bashOffers(nodes.map((n) => `${n.path.split('/').join(' ')} `));
    const global = tree.globalOptions.map((o) => o.flags[0]);
    nodes.forEach((n, i) => {
      expect({ path: n.path, offers: offers[i] }).toEqual({
        path: n.path,
        offers: [
          ...n.argumentChoices,
          ...n.commands.map((c) => c.name),
          ...n.options.map((o) => o.flags[0]),
          ...global,
        ],
      });
    });
    expect(nodes.length).toBeGreaterThan(30);
  });
});

describe.each(['zsh', 'fish'])('svc completion %s', (shell) => {
  it('names every command path, every command and every long option', () => {
    const script = scripts[shell]!;
    for (const n of allNodes(tree)) {
      expect(script).toContain(n.path);
      for (const o of n.options) {
        const long = o.flags[0]!;
        expect(script).toContain(shell === 'fish' ? `-l ${long.slice(2)}` : `'${long}:`);
      }
    }
    expect(script).toContain(shell === 'fish' ? "-a 'bash zsh fish'" : 'values=(bash zsh fish)');
  });
});

describe('svc completion usage', () => {
  it('needs a shell it knows (exit 2)', async () => {
    const missing = await run(['completion']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing required argument 'shell'/);
    const unknown = await run(['completion', 'tcsh']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
  });
});
