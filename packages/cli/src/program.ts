// The `svc` command: its commands, global options, and the mapping of every outcome to an
// exit code (0 ok, 1 API error, 2 usage error; `sites submit --wait` adds 3 and 4).
import { Command, CommanderError } from 'commander';
import { ApiError, NetworkError } from '@svc/client';
import { Context, DEFAULT_BASE_URL, type GlobalOptions, type Io } from './context.js';
import { CommandExit, CommandFailed, EXIT, UsageError } from './exit-codes.js';
import { registerAccount } from './commands/account.js';
import { registerApps } from './commands/apps.js';
import { registerChat } from './commands/chat.js';
import { registerCompletion } from './commands/completion.js';
import { registerLogin } from './commands/login.js';
import { registerMod } from './commands/mod.js';
import { registerSites } from './commands/sites.js';
import { registerTranslate } from './commands/translate.js';
import { VERSION } from './version.js';

export { EXIT } from './exit-codes.js';

const ENVIRONMENT_HELP = `
Environment:
  SVC_BASE_URL   API origin (default ${DEFAULT_BASE_URL}); --base-url overrides it
  SVC_API_KEY    app-store API key (svc_live_...), sent as Authorization: Bearer
  XDG_CONFIG_HOME  where svc login keeps its session (default ~/.config)

Exit codes: 0 ok, 1 the API answered an error (or could not be reached), 2 usage error
(unknown command, bad option, missing argument, invalid input or manifest); sites submit
--wait adds 3 (not processed within --timeout) and 4 (the page could not be fetched).`;

export function buildProgram(ctx: Context, globals: { current: GlobalOptions }): Command {
  const program = new Command('svc')
    .description('Command line for the svc app store and site-sharing APIs.')
    .version(VERSION, '-V, --version')
    .option('--json', 'print JSON (for scripts) instead of tables')
    .option('--base-url <url>', 'API origin; overrides SVC_BASE_URL')
    .addHelpText('after', ENVIRONMENT_HELP)
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
    });
  program.hook('preAction', () => {
    globals.current = program.opts<GlobalOptions>();
  });

  registerApps(program, ctx);
  registerSites(program, ctx);
  registerTranslate(program, ctx);
  registerChat(program, ctx);
  registerLogin(program, ctx);
  registerMod(program, ctx);
  registerAccount(program, ctx);
  registerCompletion(program, ctx);

  // Every command (and group) exits through us rather than process.exit.
  const all = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(all)];
  for (const cmd of all(program)) cmd.exitOverride();
  return program;
}

/** Runs svc with `argv` (without node and script) and answers the exit code. */
export async function runCli(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const globals: { current: GlobalOptions } = { current: {} };
  const ctx = new Context(io, env, () => globals.current);
  const program = buildProgram(ctx, globals);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    return report(err, ctx);
  }
}

function report(err: unknown, ctx: Context): number {
  if (err instanceof CommanderError) {
    // Commander has printed its message already. Help that was asked for (--help, `svc
    // help …`) and --version carry exit code 0; everything else, including a group called
    // without a command (help shown unasked), is a usage error.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof UsageError) {
    ctx.note(`svc: ${err.message}`);
    return EXIT.usage;
  }
  if (err instanceof ApiError) {
    const hint =
      err.status === 401
        ? ' (set SVC_API_KEY, or run `svc login`)'
        : err.status === 429 && err.retryAfter
          ? ` (retry in ${err.retryAfter} s)`
          : '';
    ctx.note(
      `svc: ${err.message}${hint} [HTTP ${err.status}${err.requestId ? `, request ${err.requestId}` : ''}]`,
    );
    if (err.details !== undefined) ctx.note(JSON.stringify(err.details, null, 2));
    return EXIT.api;
  }
  if (err instanceof NetworkError) {
    ctx.note(`svc: cannot reach the API: ${err.message}`);
    return EXIT.api;
  }
  if (err instanceof CommandExit) {
    ctx.note(`svc: ${err.message}`);
    return err.code;
  }
  if (err instanceof CommandFailed) {
    ctx.note(`svc: ${err.message}`);
    return EXIT.api;
  }
  ctx.note(
    `svc: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
  );
  return EXIT.api;
}
