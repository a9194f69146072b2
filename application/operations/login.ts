import { nonEmptyText, optional } from '../args.js';
import { nullable, object, string } from '../contract/schema.js';
import { hostOperation } from '../define.js';
import { targetOrigin } from '../remote/target-origin.js';
import { insecureHttpWarnings, warningsField } from '../remote/warnings.js';

/**
 * Spec 4.5 `login`: reads the password at the controlling terminal with echo off, exchanges it
 * for a bearer (`POST /v1/auth/login`) and stores only the bearer, under the origin, in the
 * session profile. The password is never in argv, the environment, stdin, a file or the output;
 * the bearer is never printed.
 */
export const login = hostOperation({
  name: 'login',
  summary: "Log in to the checkout's server (or --server): the password is asked at the terminal",
  details:
    'The password is read from the controlling terminal with echo off; without a terminal login fails with MISSING_FIELD. Only the bearer is stored, in $TASKDAG_HOME/remote-sessions.json (mode 0600). A wrong password is AUTH_INVALID.',
  examples: [
    ["Log in to the checkout's server", '$0 login'],
    ['Log in to a server by its origin', '$0 login --server http://127.0.0.1:8080'],
  ],
  mutates: false,
  args: () => ({ server: optional(nonEmptyText(), "The server's origin; defaults to the linked checkout's") }),
  result: () => object({
    origin: string(),
    expires_at: nullable(string('When the bearer expires, as the server says')),
    profile: string('The session profile the bearer was stored in'),
    warnings: warningsField(),
  }),
  run: async ({ client, clock }, args) => {
    const { checkouts, prompt, remote, sessions } = client();
    const origin = targetOrigin(args.server, checkouts, 'login');
    const password = await prompt.ask(`taskdag password for ${origin}: `);
    const server = remote.connect(origin, null);
    try {
      const { bearer, expires_at } = await server.login(password);
      await sessions.put(origin, { bearer, expires_at, stored_at: clock.now() });
      return { origin, expires_at, profile: sessions.location, ...insecureHttpWarnings('login', origin) };
    } finally {
      server.close();
    }
  },
});
