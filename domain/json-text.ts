/**
 * A value already written as JSON text, exactly as `JSON.stringify` writes it: a caller that
 * prints the answer at once (the command line) prints the text as it is, so a long answer built
 * from saved bytes (the stale-claim alerts of `status`) is never made into objects and printed
 * again; any other reader gets the value (`toJSON`, so `JSON.stringify` of an answer holding it
 * prints the same bytes either way). The text comes in parts, each cut between two JSON tokens:
 * strings, and UTF-8 bytes holding no backslash (written so, never decoded on the way out).
 */
export class JsonText {
  readonly parts: readonly (string | Uint8Array)[];

  constructor(...parts: (string | Uint8Array)[]) {
    this.parts = parts;
  }

  /** The whole text as one string. */
  get text(): string {
    return this.parts.map((part) => (typeof part === 'string' ? part : new TextDecoder().decode(part))).join('');
  }

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** A string's JSON text is its characters between quotes exactly when none of them needs an escape. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Whether `JSON.stringify(text)` is `"` + text + `"`: none of its characters is escaped. */
export function isPlainJsonString(text: string): boolean {
  return !NEEDS_ESCAPE.test(text);
}
