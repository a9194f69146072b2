// What the board benches share (bench/board-load.mjs, bench/board-pairs.mjs): a `taskdag ui`
// process serving a generated project, and the in-page measure of an initiative filter.
import { spawn } from 'node:child_process';

/** Starts `<binary> ui` in the project's checkout; resolves with the process and its first JSON line (its URLs). */
export function startBoard(binary, project) {
  const child = spawn(process.execPath, [binary, 'ui', '--port', '0', '--open=false'], { cwd: project.checkout, env: { ...process.env, ...project.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ child, line: JSON.parse(out.split('\n')[0]) });
    });
    child.once('exit', (code) => reject(new Error(`${binary} ui exited ${code}: ${out}`)));
  });
}

/**
 * Inside the page, from a change of the board's initiative filter to the next frame after the
 * columns show only that initiative (the board filters the snapshot it holds: no request).
 */
export function filterTime(page, initiative) {
  return page.evaluate(async (value) => {
    const select = document.querySelector('select[name="initiative"]');
    const started = performance.now();
    select.value = value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
    const shown = () => [...document.querySelectorAll('.columns li.card .initiative')].every((item) => item.textContent === value) && new URLSearchParams(location.search).get('initiative') === value;
    await new Promise((resolve) => {
      const check = () => (shown() ? requestAnimationFrame(() => resolve()) : requestAnimationFrame(check));
      check();
    });
    return performance.now() - started;
  }, initiative);
}
