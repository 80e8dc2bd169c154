// svc chat send | tail: the public chat room; tail follows the real-time channel.
import type { Command } from 'commander';
import { PostChatMessageBody, type ChatMessage } from '@svc/types';
import type { RealtimeMessage } from '@svc/client';
import type { Context } from '../context.js';
import { CommandFailed, UsageError } from '../exit-codes.js';
import { integer, parseOrUsage } from '../validate.js';

/** One line per message: `[12:00:01] Alice: hello`. */
export function formatMessage(m: ChatMessage): string {
  const time = m.created_at.slice(11, 19);
  if (m.type === 'entrance') return `[${time}] * ${m.sender_name} entered`;
  if (m.type === 'system')
    return `[${time}] * ${m.content}${m.content_key ? ` (${m.content_key})` : ''}`;
  return `[${time}] ${m.sender_name}: ${m.content}`;
}

function formatEvent(e: RealtimeMessage): string {
  if (e.event === 'new_message') return formatMessage(e.payload);
  if (e.event === 'like') return `* ${e.payload.fromUser} liked a message of ${e.payload.toUser}`;
  if (e.event === 'message_deleted') return `* message ${e.payload.id} deleted by a moderator`;
  return `* site ${e.payload.id} updated${e.payload.title ? `: ${e.payload.title}` : ''}`;
}

export function registerChat(program: Command, ctx: Context): void {
  const chat = program.command('chat').description('the public chat room');

  chat
    .command('send')
    .description('post a message (as your username after svc login, else as a visitor)')
    .argument('<message...>', 'the text, at most 200 characters')
    .action(async (words: string[]) => {
      const body = parseOrUsage(PostChatMessageBody, { content: words.join(' ') }, 'message');
      const out = await ctx.client().chat.send(body.content);
      ctx.print(out, () => formatMessage(out.message));
    });

  chat
    .command('tail')
    .description('print recent messages, then follow new ones live (Ctrl-C to stop)')
    .option('--history <n>', 'recent messages to print first, 0-100', integer('--history'), 20)
    .option('--count <n>', 'exit after this many live events', integer('--count'))
    .option('--all-events', 'also print likes and site updates')
    .addHelpText('after', '\nWith --json, one JSON object per line: { "event", "payload" }.')
    .action(async (opts: { history: number; count?: number; allEvents?: boolean }) => {
      if (opts.history < 0 || opts.history > 100) throw new UsageError('--history must be 0-100');
      if (opts.count !== undefined && opts.count < 1)
        throw new UsageError('--count must be at least 1');
      const client = ctx.client();
      const line = (e: RealtimeMessage) =>
        ctx.io.stdout.write(`${ctx.json ? JSON.stringify(e) : formatEvent(e)}\n`);

      await new Promise<void>((resolve, reject) => {
        let seen = 0;
        let printedHistory = false;
        const early: RealtimeMessage[] = [];
        // Ids of the chat messages printed, so a re-read after a resync repeats none.
        const shown = new Set<string>();
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          sub.close();
        };
        const live = (e: RealtimeMessage): boolean => {
          if (e.event === 'new_message') {
            if (shown.has(e.payload.id)) return false;
            shown.add(e.payload.id);
          }
          line(e);
          if (opts.count !== undefined && ++seen >= opts.count) {
            stop();
            return true;
          }
          return false;
        };
        // Subscribe first, then read history, so nothing posted in between is missed. The
        // socket is Node's global WebSocket (Node ≥ 22). Reconnections resume after the last
        // event (a replica restart loses and repeats nothing); if the server could not
        // resume, the recent messages are re-read and the unseen ones printed.
        const sub = client.subscribe({
          events: opts.allEvents ? undefined : ['new_message'],
          onEvent: (e) => {
            if (!printedHistory) return void early.push(e);
            live(e);
          },
          onResync: () => {
            if (!printedHistory) return;
            ctx.note('events were missed while disconnected; re-reading recent messages');
            client.chat.list({ limit: 100 }).then(
              (out) => {
                for (const m of out.messages.filter((m) => !shown.has(m.id)))
                  if (live({ event: 'new_message', payload: m })) return;
              },
              (err: unknown) => ctx.note(`could not re-read messages: ${String(err)}`),
            );
          },
          onReconnecting: ({ attempt, delayMs, code }) =>
            ctx.note(
              `connection closed (${code}); reconnecting in ${delayMs} ms (attempt ${attempt})`,
            ),
          onOpen: ({ reconnected }) => {
            if (reconnected) ctx.note('reconnected');
          },
        });
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        sub.closed.then(({ code, reason }) => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          if (code === 1000 && reason === 'client closed') resolve();
          else
            reject(
              new CommandFailed(
                `the real-time channel closed (${code}${reason ? ` ${reason}` : ''})`,
              ),
            );
        });

        const history = opts.history
          ? client.chat.list({ limit: opts.history }).then((out) => out.messages)
          : Promise.resolve([] as ChatMessage[]);
        history.then(
          (messages) => {
            for (const m of messages) {
              shown.add(m.id);
              line({ event: 'new_message', payload: m });
            }
            printedHistory = true;
            for (const e of early) if (live(e)) return;
          },
          (err: unknown) => {
            stop();
            reject(err);
          },
        );
      });
    });
}
