// `svc completion <shell>`: the completion script of each shell, from the command tree.
import type { Command } from 'commander';
import { bashScript } from './bash.js';
import { commandTree } from './command-tree.js';
import { fishScript } from './fish.js';
import { zshScript } from './zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const RENDERERS: Record<Shell, typeof bashScript> = {
  bash: bashScript,
  zsh: zshScript,
  fish: fishScript,
};

export function completionScript(program: Command, shell: Shell): string {
  return RENDERERS[shell](commandTree(program));
}
