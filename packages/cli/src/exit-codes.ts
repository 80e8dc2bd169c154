// Exit codes a CI step can rely on.
export const EXIT = {
  ok: 0,
  /** The API answered an error, or could not be reached. */
  api: 1,
  /** The command line was wrong: unknown command, bad flag, missing argument, invalid manifest. */
  usage: 2,
  /** `sites submit --wait`: the site was accepted but not processed within --timeout. */
  timeout: 3,
  /** `sites submit --wait`: processed, but its page could not be fetched (no metadata). */
  pageUnreadable: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A mistake in how svc was called; exits 2 with the message on stderr. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure that is not an HTTP error (e.g. a site not found by URL); exits 1. */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}

/** A command that ends with a code other than 0 without an error (the message is printed). */
export class CommandExit extends Error {
  override name = 'CommandExit';
  constructor(
    readonly code: ExitCode,
    message: string,
  ) {
    super(message);
  }
}
