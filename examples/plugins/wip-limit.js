'use strict';

/**
 * A taskdag policy plugin (plugin API 1, docs/plugins.md): each agent may hold at most `limit`
 * tasks in progress. The limit lives in the plugin's data, so it travels with the project
 * (snapshots, restore, push and pull) and changes with `plugin set-data`:
 *
 *   taskdag plugin add ./examples/plugins/wip-limit.js --data '{"limit": 2}' --as orchestrator
 *   taskdag plugin set-data wip-limit --data '{"limit": 2, "per_agent": {"orchestrator": 10}}' --as orchestrator
 *
 * Only an operation that puts a task in progress for an agent counts against that agent's
 * limit (a `take`, an `add-node --status in_progress`); releasing, submitting or adding a note
 * to work already held is never refused, even for an agent over its limit.
 */
module.exports = {
  name: 'wip-limit',
  apiVersion: 1,

  checkData(data) {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'the data is an object such as {"limit": 2}';
    if (!isLimit(data.limit)) return 'limit is a whole number of tasks, at least 1';
    const perAgent = data.per_agent === undefined ? {} : data.per_agent;
    if (typeof perAgent !== 'object' || perAgent === null || Array.isArray(perAgent)) return 'per_agent maps agent names to limits';
    const wrong = Object.keys(perAgent).find((agent) => !isLimit(perAgent[agent]));
    if (wrong !== undefined) return `the limit of ${wrong} is not a whole number of tasks, at least 1`;
    return null;
  },

  decide({ nodes, claims, data }) {
    for (const { before, after } of nodes) {
      const holder = inProgressBy(after);
      if (holder === null || inProgressBy(before) === holder) continue;
      const limit = data.per_agent && data.per_agent[holder] !== undefined ? data.per_agent[holder] : data.limit;
      const held = (claims[holder] || []).length;
      if (held > limit) return { allow: false, reason: `${holder} would hold ${held} tasks in progress; the limit is ${limit}` };
    }
    return { allow: true };
  },
};

function isLimit(value) {
  return Number.isInteger(value) && value >= 1;
}

function inProgressBy(node) {
  return node && node.status === 'in_progress' && node.claim ? node.claim.by : null;
}
