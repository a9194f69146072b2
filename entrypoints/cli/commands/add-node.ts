import { Command, Option } from 'clipanion';
import { bool, list, scopeLists } from '../flags.js';
import { NodeCreationCommand } from './node-options.js';

export class AddNodeCommand extends NodeCreationCommand {
  static override paths = [['add-node']];
  static override usage = Command.Usage({
    description: 'Raw escape hatch: create any node with any stored status its type allows',
    examples: [
      ['A task that is already done', '$0 add-node T-legacy --kind resolvable --subkind task --title "Imported" --initiative billing --status done --as orchestrator'],
      ['A resolved gate', '$0 add-node G-old --kind resolvable --subkind gate --title "Decided" --initiative billing --choice A --rationale "Cheaper" --as orchestrator'],
      ['A task already in progress (claimed by its creator)', '$0 add-node T-refunds --kind resolvable --subkind task --title "Refund endpoint" --initiative billing --status in_progress --as alice'],
      ['Another one', '$0 add-node T-receipts --kind resolvable --subkind task --title "Receipts" --initiative billing --status in_progress --as alice'],
    ],
  });

  kind = Option.String('--kind', { description: 'resolvable or knowledge (required)' });
  subkind = Option.String('--subkind', { description: 'task or gate (required for resolvable)' });
  status = Option.String('--status', { description: 'Stored status' });
  resolutionMode = Option.String('--resolution-mode');
  purpose = Option.String('--purpose');
  definition = Option.String('--definition');
  acceptance = Option.String('--acceptance');
  choice = Option.String('--choice');
  rationale = Option.String('--rationale');
  knowledgeType = Option.String('--knowledge-type');
  mitigation = Option.String('--mitigation');
  scopeDomains = Option.String('--scope-domains');
  scopeInitiatives = Option.String('--scope-initiatives');
  scopeTags = Option.String('--scope-tags');
  scopeNodeIds = Option.String('--scope-node-ids');
  backlog = Option.String('--backlog', { description: 'true keeps the task out of the ready pool' });
  blockedBy = Option.String('--blocked-by');
  supersedes = Option.String('--supersedes');
  id = Option.String({ required: false });

  async execute() {
    await this.perform('add-node', {
      id: this.id,
      kind: this.kind,
      subkind: this.subkind,
      ...this.commonArgs(),
      status: this.status,
      resolution_mode: this.resolutionMode,
      purpose: this.purpose,
      definition: this.definition,
      acceptance: this.acceptance,
      choice: this.choice,
      rationale: this.rationale,
      knowledge_type: this.knowledgeType,
      mitigation: this.mitigation,
      ...scopeLists(this),
      backlog: bool('--backlog', this.backlog),
      blocked_by: list(this.blockedBy),
      supersedes: this.supersedes,
    });
  }
}
