/**
 * The few path rules the server's use cases need, on absolute POSIX paths only (the composition
 * root resolves every path a user types before a use case sees it).
 */
export function isAbsolutePath(value: string): boolean {
  return value.startsWith('/');
}

/** `value` made absolute against `cwd`, with `.` and `..` resolved (as a shell user means it). */
export function resolvePath(cwd: string, value: string): string {
  const parts: string[] = [];
  for (const part of `${isAbsolutePath(value) ? '' : cwd}/${value}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

export function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

export function parentOf(file: string): string {
  const cut = file.replace(/\/+$/, '').lastIndexOf('/');
  return cut <= 0 ? '/' : file.slice(0, cut);
}

/** Whether `path` is `dir` itself or lies anywhere below it. */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}
