// svc completion bash|zsh|fish: prints the shell's completion script for svc.
import { Argument, type Command } from 'commander';
import { completionScript, SHELLS, type Shell } from '../completion/index.js';
import type { Context } from '../context.js';

const HELP = `
Load it in this shell:
  bash  source <(svc completion bash)
  zsh   source <(svc completion zsh)      (after compinit)
  fish  svc completion fish | source
or for every new shell:
  bash  svc completion bash > ~/.local/share/bash-completion/completions/svc
  zsh   svc completion zsh > "\${fpath[1]}/_svc"
  fish  svc completion fish > ~/.config/fish/completions/svc.fish`;

export function registerCompletion(program: Command, ctx: Context): void {
  program
    .command('completion')
    .description('print the shell completion script of svc (commands, subcommands, options)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText('after', HELP)
    .action((shell: Shell) => {
      ctx.io.stdout.write(completionScript(program, shell));
    });
}
