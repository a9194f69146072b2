import { spawnSync } from 'node:child_process';
import { illFormedTextIn } from '../../domain/well-formed-text.js';

/** Whether jq is on this machine (CI does not install it; the strict parse below runs either way). */
export const HAS_JQ = spawnSync('jq', ['--version']).status === 0;

/**
 * Why `output` is not JSON a strict reader takes, or null: one JSON value, or with `lines` one a
 * line (a ledger, MCP's messages). jq must read it when it is on this machine; and in any case
 * the bytes must be strict UTF-8 and no text may hold an escaped lone surrogate (`"\ud800"`):
 * JSON.parse takes one, jq refuses a lone first half and turns a lone second half into U+FFFD,
 * and strict readers refuse both.
 */
export function strictJsonRefusal(output: string | Uint8Array, lines = false): string | null {
  const bytes = typeof output === 'string' ? Buffer.from(output, 'utf8') : output;
  if (HAS_JQ) {
    const jq = spawnSync('jq', ['.'], { input: bytes, encoding: 'utf8', timeout: 10_000, maxBuffer: 1024 * 1024 * 1024 });
    if (jq.status !== 0) return `jq exited ${jq.status}: ${jq.stderr.trim()}`;
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const documents = lines ? text.split('\n').filter((line) => line.trim() !== '') : [text];
    const found = documents.map((document) => illFormedTextIn(JSON.parse(document))).find((place) => place !== null);
    return found ? `a lone surrogate escaped at ${found.path}` : null;
  } catch (error) {
    return (error as Error).message;
  }
}
