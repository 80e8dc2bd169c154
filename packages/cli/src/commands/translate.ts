// svc translate: AI translation between the 12 languages (the input language is detected).
import type { Command } from 'commander';
import { LANGUAGE_CODES, TranslateBody } from '@svc/types';
import type { Context } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { readAll } from '../prompt.js';
import { parseOrUsage } from '../validate.js';

export function registerTranslate(program: Command, ctx: Context): void {
  program
    .command('translate')
    .description('translate text (at most 2000 characters); the input language is detected')
    .argument('[text...]', 'the text; - or nothing reads standard input')
    .requiredOption('-t, --to <lang>', `target language: ${LANGUAGE_CODES.join(', ')}`)
    .action(async (words: string[], opts: { to: string }) => {
      const fromStdin = words.length === 0 || (words.length === 1 && words[0] === '-');
      if (fromStdin && ctx.io.stdin.isTTY) {
        // Nothing piped in: waiting on the terminal would look like a hang.
        throw new UsageError('give the text as arguments, or pipe it in');
      }
      const text = fromStdin
        ? (await readAll(ctx.io.stdin)).replace(/\r?\n$/, '')
        : words.join(' ');
      const body = parseOrUsage(
        TranslateBody,
        { text, targetLang: opts.to },
        'translation request',
      );
      const out = await ctx.client().translate(body);
      ctx.print(out, () => out.translated);
    });
}
