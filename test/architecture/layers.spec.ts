import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sources(rel);
    return name.endsWith('.ts') ? [rel] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g), ...text.matchAll(/require\(['"]([^'"]+)['"]\)/g)].map(
    (match) => match[1]!,
  );
}

function layerOf(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return `package:${specifier}`;
  return path.relative(ROOT, path.resolve(ROOT, path.dirname(file), specifier)).split(path.sep)[0]!;
}

describe('layers (dependencies point inward only)', () => {
  const rules: Record<string, (target: string) => boolean> = {
    domain: (target) => target === 'domain',
    application: (target) => target === 'domain' || target === 'application' || target === 'package:typanion',
    adapters: (target) => target !== 'entrypoints',
  };
  for (const [layer, allowed] of Object.entries(rules)) {
    it(`${layer}/ imports only what it may`, () => {
      const violations = sources(layer).flatMap((file) =>
        importsOf(file)
          .filter((specifier) => !allowed(layerOf(file, specifier)))
          .map((specifier) => `${file} imports ${specifier}`),
      );
      expect(violations).to.deep.equal([]);
    });
  }
});
