import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';

const ROOT = path.resolve(__dirname, '../../..');

/** The Markdown a user reads: the README, the benchmarks page and every page of docs/. */
function documents(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', 'BENCHMARKS.md', ...docs];
}

const markdown = new MarkdownIt({ html: true });
type Token = ReturnType<typeof markdown.parse>[number];

interface Rendered {
  readonly file: string;
  readonly lines: readonly string[];
  readonly tokens: readonly Token[];
}

function render(file: string): Rendered {
  const source = readFileSync(path.join(ROOT, file), 'utf8');
  return { file, lines: source.split('\n'), tokens: markdown.parse(source, {}) };
}

/** Block tokens and the inline tokens inside them, in document order. */
function flatten(tokens: readonly Token[]): Token[] {
  return tokens.flatMap((token) => [token, ...(token.children ?? [])]);
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(document: Rendered): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  document.tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const text = (document.tokens[index + 1]!.children ?? []).map((child) => child.content).join('');
    const slug = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats === 0 ? slug : `${slug}-${repeats}`);
  });
  return anchors;
}

/** A fence left open swallows the document's rest; a fence closed by the wrong line swallows the next block's opening. */
function fenceProblems(document: Rendered): string[] {
  const problems: string[] = [];
  for (const token of document.tokens) {
    if (token.type !== 'fence') continue;
    const [start, end] = token.map!;
    const last = document.lines[end - 1] ?? '';
    const closes = end - start >= 2 && new RegExp(`^ {0,3}${token.markup[0]}{${token.markup.length},}\\s*$`).test(last);
    if (!closes) problems.push(`${document.file}:${start + 1}: the code block opened here is never closed`);
    const swallowed = token.content.split('\n').findIndex((line) => /^ {0,3}(`{3,}|~{3,})[^`~\s]/.test(line));
    if (swallowed >= 0) problems.push(`${document.file}:${start + 2 + swallowed}: a code block's opening fence sits inside the block opened at line ${start + 1}`);
  }
  return problems;
}

/** A link inside the repository names a file that exists and, if it has one, a heading of that file. */
function linkProblems(document: Rendered, anchorsOf: (file: string) => Set<string>): string[] {
  const problems: string[] = [];
  const where = (block: Token | undefined) => `${document.file}:${(block?.map?.[0] ?? 0) + 1}`;
  let block: Token | undefined;
  for (const token of flatten(document.tokens)) {
    if (token.map) block = token;
    if (token.type !== 'link_open') continue;
    const href = String(token.attrGet('href') ?? '');
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // http:, https:, mailto: leave the repository on purpose
    const [target, anchor] = href.split('#', 2) as [string, string | undefined];
    const file = target === '' ? document.file : path.posix.normalize(path.posix.join(path.posix.dirname(document.file), decodeURIComponent(target)));
    if (file.startsWith('../') || path.posix.isAbsolute(file)) {
      problems.push(`${where(block)}: the link ${href} leaves the repository`);
    } else if (target !== '' && !existsSync(path.join(ROOT, file))) {
      problems.push(`${where(block)}: the link ${href} names a file that does not exist`);
    } else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor)) {
      problems.push(`${where(block)}: the link ${href} names no heading of ${file}`);
    }
  }
  return problems;
}

/**
 * A relative path a reader is told to open must stay inside the repository they cloned. Shell
 * lines in code blocks are left out: they run in the reader's own directories (`cd ../app`).
 */
function outsidePaths(document: Rendered): string[] {
  const problems: string[] = [];
  const inCode = new Set(document.tokens.filter((token) => token.type === 'fence').flatMap((token) => range(token.map![0], token.map![1])));
  document.lines.forEach((line, index) => {
    if (inCode.has(index)) return;
    for (const [mention] of line.matchAll(/(?<![\w/.-])(?:\.\.?\/)+[\w.-][\w./-]*/g)) {
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(document.file), mention));
      if (resolved.startsWith('../')) problems.push(`${document.file}:${index + 1}: ${mention} is outside the repository`);
    }
  });
  return problems;
}

function range(start: number, end: number): number[] {
  return Array.from({ length: end - start }, (_, offset) => start + offset);
}

/** "spec 4.6" points into a document the reader of this repository does not have. */
function specReferences(document: Rendered): string[] {
  return document.lines.flatMap((line, index) =>
    [...line.matchAll(/\bspec(?:'s)? (?:§\s*)?\d+(?:\.\d+)*/gi)].map(([reference]) => `${document.file}:${index + 1}: "${reference}" names a section of a spec this repository does not hold`),
  );
}

describe('Markdown of the README and docs/ (renders, links resolve, stays in the repository)', () => {
  const rendered = new Map(documents().map((file) => [file, render(file)]));
  const anchors = new Map<string, Set<string>>();
  const anchorsOf = (file: string): Set<string> => {
    if (!anchors.has(file)) anchors.set(file, headingAnchors(rendered.get(file) ?? render(file)));
    return anchors.get(file)!;
  };

  it('closes every code block it opens', () => {
    expect([...rendered.values()].flatMap(fenceProblems)).to.deep.equal([]);
  });

  it('links only to files and headings that exist', () => {
    expect([...rendered.values()].flatMap((document) => linkProblems(document, anchorsOf))).to.deep.equal([]);
  });

  it('names no path outside the repository', () => {
    expect([...rendered.values()].flatMap(outsidePaths)).to.deep.equal([]);
  });

  it('says the rule instead of pointing at a numbered section of the spec', () => {
    expect([...rendered.values()].flatMap(specReferences)).to.deep.equal([]);
  });

  it('the README links every page of docs/, so none is out of a reader\'s reach', () => {
    const linked = new Set(flatten(rendered.get('README.md')!.tokens).filter((token) => token.type === 'link_open').map((token) => String(token.attrGet('href')).split('#')[0]));
    expect(documents().filter((file) => file.startsWith('docs/') && !linked.has(file))).to.deep.equal([]);
  });

  it('catches each kind of problem in a document made to have it', () => {
    const broken = (source: string): Rendered => ({ file: 'docs/broken.md', lines: source.split('\n'), tokens: markdown.parse(source, {}) });
    expect(fenceProblems(broken('# A\n\n```sh\n$ taskdag init\n## B\n'))).to.have.length(1);
    expect(fenceProblems(broken('```sh\none\n## B\n```sh\ntwo\n```\n'))).to.have.length.above(0);
    expect(fenceProblems(broken('```sh\none\n```\n'))).to.deep.equal([]);
    const links = broken('# Here\n\n[a](missing.md) [b](#nowhere) [c](../../x.md) [d](#here) [e](../README.md) [f](https://example.org/x.md)');
    const anchorsWithBroken = (file: string) => (file === links.file ? headingAnchors(links) : anchorsOf(file));
    expect(linkProblems(links, anchorsWithBroken)).to.have.length(3);
    expect(outsidePaths(broken('see `../../shared/ARCHITECTURE.md`, `../README.md`\n\n```sh\n$ cd ../../app\n```\n'))).to.have.length(1);
    expect(specReferences(broken('as spec 4.6 says, and spec\'s 2.1'))).to.have.length(2);
  });
});
