import fs from 'node:fs';

/**
 * Stands in for graceful-fs in the CLI bundle (scripts/build.mjs aliases it here). The adapters
 * the CLI runs make only synchronous calls, and graceful-fs changes nothing about those (its
 * EMFILE queue and retries wrap asynchronous calls), yet patching fs at load costs every command
 * about 5 ms. An adapter that starts making asynchronous calls in the CLI process would need
 * this alias gone.
 */
export default fs;
