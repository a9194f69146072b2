/**
 * A Node built-in loaded on first use. Agents run the command line hundreds of times per task:
 * a command that never talks HTTP, prompts or hashes must not pay for loading http, tty or
 * crypto (together several milliseconds of every start-up).
 */
export function onFirstUse<T>(load: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= load());
}
