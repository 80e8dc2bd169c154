// `svc completion bash`: a completion function for bash 4+ (and bash-completion's loader).
// It walks the words before the cursor to find the command path, then offers that
// command's subcommands and options; after an option that takes a value it offers that
// option's choices, or leaves the word to bash's own completion (files).
import { allNodes, valueFlags, type CompletionTree, type OptionSpec } from './command-tree.js';

const words = (list: string[]) => `'${list.join(' ')}'`;
/** The long form of each option (the short ones still work, typed in full). */
const flagsOf = (options: OptionSpec[]) => options.map((o) => o.flags[0]!);

export function bashScript(tree: CompletionTree): string {
  const nodes = allNodes(tree);
  const paths = nodes.filter((n) => n !== tree.root).map((n) => n.path);
  const global = flagsOf(tree.globalOptions);
  const offers = nodes
    .map((n) => {
      const list = [
        ...n.argumentChoices,
        ...n.commands.map((c) => c.name),
        ...flagsOf(n.options),
        ...global,
      ];
      return `    ${n.path}) offers=${words(list)} ;;`;
    })
    .join('\n');
  const choices = [...tree.globalOptions, ...nodes.flatMap((n) => n.options)]
    .filter((o) => o.choices.length > 0)
    .map(
      (o) =>
        `    ${o.flags.join('|')}) COMPREPLY=($(compgen -W ${words(o.choices)} -- "$cur")); return ;;`,
    );
  return `# svc completion for bash. Load it in this shell:
#   source <(svc completion bash)
# or for every new shell (with the bash-completion package):
#   svc completion bash > ~/.local/share/bash-completion/completions/svc
_svc_completion() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  local path=svc word i offers=''
  COMPREPLY=()
  # The command path: the words before the cursor that name a subcommand of the path so far.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    case "$path/$word" in
      ${paths.join('|')}) path=$path/$word ;;
    esac
  done
  case "$prev" in
${[...choices, `    ${valueFlags(tree).join('|')}) return ;;`].join('\n')}
  esac
  case "$path" in
${offers}
  esac
  COMPREPLY=($(compgen -W "$offers" -- "$cur"))
}
complete -o default -F _svc_completion svc
`;
}
