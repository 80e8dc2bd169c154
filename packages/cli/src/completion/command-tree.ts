// The command tree of `svc` as the completion scripts need it, read from the commander
// program itself, so every command and option added later completes without more work.
import type { Command, Option } from 'commander';

export interface OptionSpec {
  /** `--json`, and `-q` beside `--search` when it has a short form. */
  flags: string[];
  description: string;
  /** Takes a value (`--limit <n>`): the next word is that value, not a command. */
  takesValue: boolean;
  /** The values it accepts, when commander knows them. */
  choices: string[];
}

export interface CommandNode {
  name: string;
  /** `svc`, `svc/apps`, `svc/apps/keys`: the words that lead here, joined by `/`. */
  path: string;
  description: string;
  commands: CommandNode[];
  /** Its own options; the global ones are in `CompletionTree.globalOptions`. */
  options: OptionSpec[];
  /** Values its first argument accepts (`svc completion <shell>`). */
  argumentChoices: string[];
}

export interface CompletionTree {
  root: CommandNode;
  /** Options of the program accepted after any command (`--json`, `--base-url`, `--help`). */
  globalOptions: OptionSpec[];
}

const HELP: OptionSpec = {
  flags: ['--help', '-h'],
  description: 'show help',
  takesValue: false,
  choices: [],
};

function optionSpec(option: Option): OptionSpec {
  return {
    flags: [option.long, option.short].filter((f): f is string => Boolean(f)),
    description: option.description,
    takesValue: option.required || option.optional,
    choices: option.argChoices ?? [],
  };
}

function node(cmd: Command, parentPath: string | undefined): CommandNode {
  const path = parentPath === undefined ? cmd.name() : `${parentPath}/${cmd.name()}`;
  return {
    name: cmd.name(),
    path,
    description: cmd.description(),
    commands: cmd.commands.map((sub) => node(sub, path)),
    options: parentPath === undefined ? [] : cmd.options.filter((o) => !o.hidden).map(optionSpec),
    argumentChoices: cmd.registeredArguments[0]?.argChoices ?? [],
  };
}

/** The tree of `program`; root options other than --version count as global. */
export function commandTree(program: Command): CompletionTree {
  const root = node(program, undefined);
  const rootOptions = program.options.filter((o) => !o.hidden).map(optionSpec);
  const isVersion = (o: OptionSpec) => o.flags.includes('--version');
  root.options = rootOptions.filter(isVersion);
  return { root, globalOptions: [...rootOptions.filter((o) => !isVersion(o)), HELP] };
}

/** Every node, the root first. */
export function allNodes(tree: CompletionTree): CommandNode[] {
  const walk = (n: CommandNode): CommandNode[] => [n, ...n.commands.flatMap(walk)];
  return walk(tree.root);
}

/** The flags that take a value, anywhere in the tree. */
export function valueFlags(tree: CompletionTree): string[] {
  const specs = [...tree.globalOptions, ...allNodes(tree).flatMap((n) => n.options)];
  return [...new Set(specs.filter((o) => o.takesValue).flatMap((o) => o.flags))].sort();
}
