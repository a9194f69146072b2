/**
 * Sets the exit status a command line resolves to (process.exitCode). The command itself turns
 * every failure into an envelope: reaching the catch means writing that envelope failed too.
 */
export function settle(status: Promise<number>): Promise<void> {
  return status.then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`taskdag: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
