import { spawn } from 'node:child_process';

/**
 * Opens `url` in the user's browser: `$BROWSER` when set (the convention xdg-open and Python's
 * webbrowser follow; tests point it at a script), else the platform's opener. Detached, so the
 * browser outlives nothing of ours. Resolves to why it could not start, or null.
 */
export function openInBrowser(url: string, env: Record<string, string | undefined>): Promise<string | null> {
  const command = env.BROWSER || (process.platform === 'darwin' ? 'open' : 'xdg-open');
  return new Promise((resolve) => {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
    child.once('error', (error: NodeJS.ErrnoException) => resolve(`${command}: ${error.code ?? error.message}`));
    child.once('spawn', () => {
      child.unref();
      resolve(null);
    });
  });
}
