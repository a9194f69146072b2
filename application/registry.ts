import { DomainError } from '../domain/errors.js';
import { closestTo, didYouMean } from '../domain/suggestions.js';
import { illFormedTextMessage, isWellFormedText } from '../domain/well-formed-text.js';
import type { Operation, OperationCatalog } from './operation.js';

export class OperationRegistry implements OperationCatalog {
  private readonly byName = new Map<string, Operation>();

  constructor(operations: readonly Operation[]) {
    for (const operation of operations) this.byName.set(operation.name, operation);
  }

  get(name: string): Operation {
    const operation = this.byName.get(name);
    if (!operation) {
      // Named only when well-formed: no JSON answer a strict reader takes could carry it (docs/decisions.md).
      if (!isWellFormedText(name)) throw new DomainError('INVALID_ARGUMENT', illFormedTextMessage('The operation name'), { field: 'operation' });
      const suggestions = closestTo(name, this.byName.keys());
      throw new DomainError('UNKNOWN_COMMAND', `Unknown operation ${name}${didYouMean(suggestions)}`, {
        operation: name,
        ...(suggestions.length > 0 ? { suggestions } : {}),
      });
    }
    return operation;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}
