import { Command, Option } from 'clipanion';
import { bool, integer, jsonObject, list, scopeLists } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

export class UpdateCommand extends TaskdagCommand {
  static override paths = [['update']];
  static override usage = Command.Usage({
    description: 'Change fields of a node; --tags, --refs and the scope lists replace the whole list',
    details: 'With `--if-revision N` the update applies only if the node is still at revision N (else REVISION_CONFLICT).',
    examples: [
      ['Bring a task out of the backlog', '$0 update T-invoice-api --backlog false --as alice'],
      ['Retitle only if nobody changed it meanwhile', '$0 update T-invoice-api --title "Invoice REST API" --if-revision 3 --as alice'],
    ],
  });

  ifRevision = Option.String('--if-revision', { description: 'Apply only at this node revision' });
  title = Option.String('--title');
  body = Option.String('--body');
  initiative = Option.String('--initiative');
  allowUnregisteredInitiative = Option.String('--allow-unregistered-initiative', { tolerateBoolean: true });
  domain = Option.String('--domain', { description: '"" clears it' });
  tags = Option.String('--tags', { description: 'Comma-separated; replaces all tags' });
  refs = Option.String('--refs', { description: 'Comma-separated; replaces all refs' });
  meta = Option.String('--meta', { description: 'A JSON object; replaces meta' });
  definition = Option.String('--definition');
  acceptance = Option.String('--acceptance');
  backlog = Option.String('--backlog', { description: 'true or false' });
  purpose = Option.String('--purpose');
  resolutionMode = Option.String('--resolution-mode');
  knowledgeType = Option.String('--knowledge-type');
  mitigation = Option.String('--mitigation');
  scopeDomains = Option.String('--scope-domains');
  scopeInitiatives = Option.String('--scope-initiatives');
  scopeTags = Option.String('--scope-tags');
  scopeNodeIds = Option.String('--scope-node-ids');
  id = Option.String({ required: false });

  async execute() {
    await this.perform('update', {
      id: this.id,
      if_revision: integer('--if-revision', this.ifRevision, 1),
      title: this.title,
      body: this.body,
      initiative: this.initiative,
      allow_unregistered_initiative: bool('--allow-unregistered-initiative', this.allowUnregisteredInitiative),
      domain: this.domain,
      tags: list(this.tags),
      refs: list(this.refs),
      meta: jsonObject('--meta', this.meta),
      definition: this.definition,
      acceptance: this.acceptance,
      backlog: bool('--backlog', this.backlog),
      purpose: this.purpose,
      resolution_mode: this.resolutionMode,
      knowledge_type: this.knowledgeType,
      mitigation: this.mitigation,
      ...scopeLists(this),
    });
  }
}
