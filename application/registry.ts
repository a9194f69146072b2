import { DomainError } from '../domain/errors.js';
import type { Operation, OperationCatalog } from './operation.js';

export class OperationRegistry implements OperationCatalog {
  private readonly byName = new Map<string, Operation>();

  constructor(operations: readonly Operation[]) {
    for (const operation of operations) this.byName.set(operation.name, operation);
  }

  get(name: string): Operation {
    const operation = this.byName.get(name);
    if (!operation) throw new DomainError('UNKNOWN_COMMAND', `Unknown operation ${name}`, { operation: name });
    return operation;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}
