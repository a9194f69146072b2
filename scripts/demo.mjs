// The quick-start demo: creates a throwaway project, walks a few commands of the real binary,
// and prints what each returned. Nothing outside a temp directory is touched.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = mkdtempSync(path.join(os.tmpdir(), 'taskdag-demo-'));
const env = { ...process.env, TASKDAG_HOME: path.join(root, 'home'), TASKDAG_AGENT: 'demo-agent' };
const binary = path.resolve('dist/taskdag.js');

function taskdag(...args) {
  console.log(`$ taskdag ${args.map((arg) => (/[\s"{}]/.test(arg) || arg === '' ? `'${arg}'` : arg)).join(' ')}`);
  let out;
  try {
    out = execFileSync(process.execPath, [binary, ...args], { cwd: root, env, encoding: 'utf8' });
  } catch (error) {
    out = error.stdout;
  }
  const value = JSON.parse(out);
  console.log(JSON.stringify(value, null, 2) + '\n');
  return value;
}

taskdag('init');
taskdag('add-initiative', 'demo', '--desc', 'A first look at taskdag');
taskdag('add-gate', 'G-design', '--initiative', 'demo', '--title', 'Pick a design', '--body', 'A or B', '--purpose', 'Unblock the build');
taskdag('add-task', 'T-build', '--initiative', 'demo', '--title', 'Build it', '--body', 'Per the design', '--acceptance', 'Tests pass', '--blocked-by', 'G-design');
taskdag('add-knowledge', '--initiative', 'demo', '--title', 'Prefer small commits', '--body', 'Easier review', '--scope-initiatives', 'demo');
taskdag('status');
taskdag('resolve', 'G-design', '--choice', 'A', '--rationale', 'Simpler', '--as', 'lead');
taskdag('take', 'T-build');
taskdag('submit', 'T-build', '--note', 'Built per design A');
taskdag('accept', 'T-build', '--as', 'reviewer');
const status = taskdag('status', '--all');
console.log(`Demo project in ${root}: ${status.tasks.done.length} task done, ${status.gates.resolved.length} gate resolved.`);
