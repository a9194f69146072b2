/**
 * Opens `url` in the user's browser: `$BROWSER` when set (the convention xdg-open and Python's
 * webbrowser follow; tests point it at a script), else the platform's opener. Detached, so the
 * browser outlives nothing of ours. Resolves to why it could not start, or null. child_process
 * (and the net code it loads, about 4 ms) is loaded here, not by every command that bundles this.
 */
export function openInBrowser(url: string, env: Record<string, string | undefined>): Promise<string | null> {
  const command = env.BROWSER || (process.platform === 'darwin' ? 'open' : 'xdg-open');
  // require, not import(): the CLI bundle runs in a vm.Script (its code cache), where import() has no loader.
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
    child.once('error', (error: NodeJS.ErrnoException) => resolve(`${command}: ${error.code ?? error.message}`));
    child.once('spawn', () => {
      child.unref();
      resolve(null);
    });
  });
}
