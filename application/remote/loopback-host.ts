/**
 * Whether a host, as WHATWG URL parsing writes it (`new URL(...).hostname`: lower case, IPv4 in
 * dotted decimal, IPv6 compressed in brackets), names this machine: `localhost` and `*.localhost`
 * (RFC 6761, with or without the root's trailing dot), 127.0.0.0/8, `[::1]`, and 127.0.0.0/8
 * mapped into IPv6 (`[::ffff:127.0.0.1]`, written `[::ffff:7f00:1]`). None of these is resolved
 * through a DNS an attacker controls, which is what both its users need: the client's warning
 * about plain HTTP, and the local board's refusal of other names (DNS rebinding).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
