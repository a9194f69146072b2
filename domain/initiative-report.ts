import { allNodes } from './node-map.js';
import type { Timestamp } from './clock.js';
import { isKnowledge, isTask, type Graph } from './model.js';

export interface InitiativeCounts {
  name: string;
  desc: string;
  created_at: Timestamp;
  nodes: number;
  tasks: number;
  knowledge: number;
}

export interface InitiativesReport {
  initiatives: InitiativeCounts[];
  /** Nodes whose initiative was never registered (created with --allow-unregistered-initiative). */
  unregistered: { nodes: number; values: string[] };
  all: boolean;
}

/**
 * Registered initiatives with how many nodes each holds, by name; those with no node only with
 * `all`. Nodes of any status count: a node is never deleted, so every node is a live one.
 */
export function initiativesReport(graph: Graph, all: boolean): InitiativesReport {
  const counts = new Map<string, { nodes: number; tasks: number; knowledge: number }>();
  for (const node of allNodes(graph)) {
    const entry = counts.get(node.initiative) ?? { nodes: 0, tasks: 0, knowledge: 0 };
    entry.nodes += 1;
    if (isTask(node)) entry.tasks += 1;
    if (isKnowledge(node)) entry.knowledge += 1;
    counts.set(node.initiative, entry);
  }
  const initiatives = Object.keys(graph.initiatives)
    .sort()
    .map((name) => ({ name, ...graph.initiatives[name]!, ...(counts.get(name) ?? { nodes: 0, tasks: 0, knowledge: 0 }) }))
    .filter((initiative) => all || initiative.nodes > 0);
  const values = [...counts.keys()].filter((name) => !Object.hasOwn(graph.initiatives, name)).sort();
  return {
    initiatives,
    unregistered: { nodes: values.reduce((sum, name) => sum + counts.get(name)!.nodes, 0), values },
    all,
  };
}
