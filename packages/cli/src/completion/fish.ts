// `svc completion fish`: `complete` rules for fish, one per subcommand and option, each
// guarded by the command path found in the words typed so far.
import { allNodes, type CompletionTree, type OptionSpec } from './command-tree.js';

/** A single-quoted fish string. */
const quote = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

function optionRule(o: OptionSpec, condition: string | undefined): string {
  const parts = ['complete -c svc'];
  if (condition) parts.push(`-n ${quote(condition)}`);
  for (const flag of o.flags)
    parts.push(flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`);
  // A value: its choices, else files (a manifest, an SVG, a URL typed by hand).
  if (o.choices.length > 0) parts.push(`-x -a ${quote(o.choices.join(' '))}`);
  else if (o.takesValue) parts.push('-r -F');
  parts.push(`-d ${quote(o.description)}`);
  return parts.join(' ');
}

export function fishScript(tree: CompletionTree): string {
  const nodes = allNodes(tree);
  const paths = nodes.filter((n) => n !== tree.root).map((n) => n.path);
  const rules: string[] = [];
  for (const n of nodes) {
    const at = `test (__svc_path) = ${n.path}`;
    for (const c of n.commands)
      rules.push(`complete -c svc -n ${quote(at)} -a ${c.name} -d ${quote(c.description)}`);
    if (n.argumentChoices.length > 0)
      rules.push(`complete -c svc -n ${quote(at)} -a ${quote(n.argumentChoices.join(' '))}`);
    for (const o of n.options) rules.push(optionRule(o, at));
  }
  for (const o of tree.globalOptions) rules.push(optionRule(o, undefined));
  return `# svc completion for fish. Load it in this shell:
#   svc completion fish | source
# or for every new shell:
#   svc completion fish > ~/.config/fish/completions/svc.fish

# The command path: the words typed so far that name a subcommand of the path before them.
function __svc_path
    set -l path svc
    set -l typed (commandline -opc)
    set -e typed[1]
    for word in $typed
        switch "$path/$word"
            case ${paths.join(' ')}
                set path "$path/$word"
        end
    end
    echo $path
end

complete -c svc -f
${rules.join('\n')}
`;
}
