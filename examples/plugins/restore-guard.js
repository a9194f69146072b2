'use strict';

/**
 * A taskdag policy plugin (plugin API 1, docs/plugins.md): only the administrative agents may
 * restore a snapshot (spec 4.4 and 5.8). Every other operation is left to taskdag's own rules.
 *
 *   taskdag plugin add ./examples/plugins/restore-guard.js --as orchestrator
 */
const RESTORERS = ['orchestrator', 'recovery'];

module.exports = {
  name: 'restore-guard',
  apiVersion: 1,

  decide(request) {
    if (request.operation !== 'restore' || RESTORERS.includes(request.agent)) return { allow: true };
    return { allow: false, reason: `only ${RESTORERS.join(' and ')} may restore a snapshot, not ${request.agent}` };
  },
};
