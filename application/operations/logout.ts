import { nonEmptyText, optional } from '../args.js';
import { boolean, object, string } from '../contract/schema.js';
import { hostOperation } from '../define.js';
import { targetOrigin } from '../remote/target-origin.js';

/** Spec 4.5 `logout`: removes the origin's bearer from the local profile only; the server is not told. */
export const logout = hostOperation({
  name: 'logout',
  summary: "Forget the bearer of the checkout's server (or --server) on this machine",
  details: 'Only the local entry goes: the server keeps its session until it expires or the password is rotated. Other origins are kept.',
  examples: [
    ["Forget the checkout's server", '$0 logout'],
    ['Forget a server by its origin', '$0 logout --server http://127.0.0.1:8080'],
  ],
  mutates: false,
  args: () => ({ server: optional(nonEmptyText(), "The server's origin; defaults to the linked checkout's") }),
  result: () => object({
    origin: string(),
    removed: boolean('Whether there was a bearer to forget'),
    profile: string(),
  }),
  run: async ({ client }, args) => {
    const { checkouts, sessions } = client();
    const origin = targetOrigin(args.server, checkouts, 'logout');
    return { origin, removed: await sessions.remove(origin), profile: sessions.location };
  },
});
