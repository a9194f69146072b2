/**
 * Server paths never appear in an HTTP body (ARCHITECTURE.md): every occurrence of a directory
 * the server knows is replaced by its name in angle brackets (`<dataRoot>/p-1/tasks.json`),
 * in the message and throughout `details`.
 */
export class PathRedactor {
  private readonly roots: [string, string][];

  constructor(roots: Record<string, string>) {
    // Longest first, so a directory inside another is named by the closer one.
    this.roots = Object.entries(roots)
      .filter(([, dir]) => dir.length > 1)
      .map(([label, dir]): [string, string] => [dir.replace(/\/+$/, ''), `<${label}>`])
      .sort((a, b) => b[0].length - a[0].length);
  }

  text(value: string): string {
    return this.roots.reduce((text, [dir, label]) => text.split(dir).join(label), value);
  }

  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.value(item)]));
    }
    return value;
  }
}
