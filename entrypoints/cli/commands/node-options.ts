import { Option } from 'clipanion';
import { bool, jsonObject, list } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

/** The flags every node-creating command shares (spec 4.2), translated once. */
export abstract class NodeCreationCommand extends TaskdagCommand {
  initiative = Option.String('--initiative', { description: 'A registered initiative (required)' });
  title = Option.String('--title', { description: 'Short title (required)' });
  body = Option.String('--body', { description: 'Longer text' });
  domain = Option.String('--domain', { description: 'Domain, e.g. backend' });
  tags = Option.String('--tags', { description: 'Comma-separated tags' });
  refs = Option.String('--refs', { description: 'Comma-separated references (files, URLs, ids)' });
  meta = Option.String('--meta', { description: 'A JSON object of free-form metadata' });
  derivedFrom = Option.String('--derived-from', { description: 'Comma-separated ids this node derives from' });
  // Takes a value (`=true`, or `true` after a space) rather than standing alone, so that a
  // following `true` is never mistaken for the node id.
  allowUnregisteredInitiative = Option.String('--allow-unregistered-initiative', {
    description: 'true accepts an initiative that was never registered',
  });

  protected commonArgs(): Record<string, unknown> {
    return {
      initiative: this.initiative,
      title: this.title,
      body: this.body,
      domain: this.domain,
      tags: list(this.tags),
      refs: list(this.refs),
      meta: jsonObject('--meta', this.meta),
      derived_from: list(this.derivedFrom),
      allow_unregistered_initiative: bool('--allow-unregistered-initiative', this.allowUnregisteredInitiative),
    };
  }
}
