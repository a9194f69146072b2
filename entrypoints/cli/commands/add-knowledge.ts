import { Command, Option } from 'clipanion';
import { scopeLists } from '../flags.js';
import { NodeCreationCommand } from './node-options.js';

export class AddKnowledgeCommand extends NodeCreationCommand {
  static override paths = [['add-knowledge']];
  static override usage = Command.Usage({
    description: 'Record reusable guidance, delivered to the work its scope matches',
    details: 'At least one of `--scope-domains`, `--scope-initiatives`, `--scope-tags`, `--scope-node-ids` is required.',
    examples: [
      [
        'Guidance for all backend work',
        '$0 add-knowledge K-cents --initiative billing --title "Money is integer cents" --body "Never floats" --scope-domains backend --knowledge-type pitfall --mitigation "Use bigint cents" --as alice',
      ],
    ],
  });

  knowledgeType = Option.String('--knowledge-type', { description: 'Kind of guidance, e.g. pitfall' });
  mitigation = Option.String('--mitigation', { description: 'What to do about it' });
  scopeDomains = Option.String('--scope-domains', { description: 'Comma-separated domains it applies to' });
  scopeInitiatives = Option.String('--scope-initiatives', { description: 'Comma-separated initiatives it applies to' });
  scopeTags = Option.String('--scope-tags', { description: 'Comma-separated tags it applies to' });
  scopeNodeIds = Option.String('--scope-node-ids', { description: 'Comma-separated node ids it applies to' });
  supersedes = Option.String('--supersedes', { description: 'The knowledge this one replaces (it is deprecated)' });
  id = Option.String({ required: false });

  async execute() {
    await this.perform('add-knowledge', {
      id: this.id,
      ...this.commonArgs(),
      knowledge_type: this.knowledgeType,
      mitigation: this.mitigation,
      ...scopeLists(this),
      supersedes: this.supersedes,
    });
  }
}
