// `--name K=V` command-line settings, for the benchmarks that start processes with extra
// environment (tracing.mjs --on-env, tracing-pairs.mjs --env and --twin-env).

/** Every `--name K=V` in `argv` as one environment (a value may hold '='). */
export function envArgs(name, argv = process.argv) {
  const env = {};
  argv.forEach((word, i) => {
    if (word !== `--${name}`) return;
    const pair = argv[i + 1] ?? '';
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--${name} takes K=V, not ${JSON.stringify(pair)}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  });
  return env;
}
