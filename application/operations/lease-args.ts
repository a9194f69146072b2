import { LEASE_DURATION_PATTERN } from '../../domain/fencing.js';
import { optional, positiveInteger, textMatching } from '../args.js';

/**
 * The arguments of leases and fencing tokens (domain/fencing.ts), shared by the operations that take
 * them; each built when an operation's arguments are (application/define.ts says why).
 */
export const leaseArg = () => optional(textMatching(LEASE_DURATION_PATTERN), 'A lease on the claim, 1s to 168h (90s, 15m, 2h): renew it, or recovery may sweep it');
export const claimTokenArg = () => optional(positiveInteger(), "Your claim's fencing token (from take or next): CLAIM_FENCED once the claim is not yours");
