// `svc completion zsh`: a native zsh completion function (compsys), with descriptions.
// It finds the command path like the bash one, then offers subcommands (with what they
// do), options (after a `-`), argument choices, and files after an option that takes a
// value and has no choices.
import { allNodes, valueFlags, type CompletionTree, type OptionSpec } from './command-tree.js';

/** A `_describe` entry `name:description` as a single-quoted zsh word. */
const entry = (name: string, description: string) =>
  `'${`${name}:${description.replace(/:/g, '\\:')}`.replace(/'/g, `'\\''`)}'`;

/** The long form of each option (the short ones still work, typed in full). */
const optionEntries = (options: OptionSpec[]) =>
  options.map((o) => entry(o.flags[0]!, o.description));

export function zshScript(tree: CompletionTree): string {
  const nodes = allNodes(tree);
  const paths = nodes.filter((n) => n !== tree.root).map((n) => n.path);
  const global = optionEntries(tree.globalOptions);
  const offers = nodes
    .map((n) =>
      [
        `    (${n.path})`,
        `      commands=(${n.commands.map((c) => entry(c.name, c.description)).join(' ')})`,
        `      options=(${[...optionEntries(n.options), ...global].join(' ')})`,
        `      values=(${n.argumentChoices.join(' ')}) ;;`,
      ].join('\n'),
    )
    .join('\n');
  const choices = [...tree.globalOptions, ...nodes.flatMap((n) => n.options)]
    .filter((o) => o.choices.length > 0)
    .map((o) => `    (${o.flags.join('|')}) compadd -- ${o.choices.join(' ')}; return ;;`);
  return `#compdef svc
# svc completion for zsh. Load it in this shell (after compinit):
#   source <(svc completion zsh)
# or for every new shell: save it as _svc in a folder of $fpath:
#   svc completion zsh > "\${fpath[1]}/_svc"
_svc() {
  local cmdpath=svc word i
  local -a commands options values
  # The command path: the words before the cursor that name a subcommand of the path so far.
  for ((i = 2; i < CURRENT; i++)); do
    word=\${words[i]}
    case "$cmdpath/$word" in
      (${paths.join('|')}) cmdpath=$cmdpath/$word ;;
    esac
  done
  case "\${words[CURRENT-1]}" in
${[...choices, `    (${valueFlags(tree).join('|')}) _files; return ;;`].join('\n')}
  esac
  case "$cmdpath" in
${offers}
  esac
  if [[ $PREFIX == -* ]]; then
    _describe -t options 'svc option' options
  else
    (( \${#values} )) && compadd -- "\${values[@]}"
    (( \${#commands} )) && _describe -t commands 'svc command' commands
  fi
}
if [ "$funcstack[1]" = "_svc" ]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
}
