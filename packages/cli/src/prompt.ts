// Questions on stderr, answers from stdin, line by line. Lines are buffered, so answers
// piped in ahead of the questions are not lost.
import { createInterface } from 'node:readline';
import type { Io } from './context.js';
import { UsageError } from './exit-codes.js';

export interface Prompter {
  ask(question: string): Promise<string>;
  close(): void;
}

export function createPrompter(io: Io): Prompter {
  const rl = createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async ask(question) {
      io.stderr.write(question);
      const next = await lines.next();
      if (next.done) throw new UsageError(`no answer on standard input to: ${question.trim()}`);
      return String(next.value).trim();
    },
    close: () => rl.close(),
  };
}

/** All of stdin as text (for `-` arguments). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
