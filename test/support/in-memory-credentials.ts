import type { CredentialStore } from '../../application/ports/auth-store.js';
import type { Credential } from '../../application/server/credential-record.js';

/** Bound credentials in memory, as both stores keep them (names unique, removal by name). */
export class InMemoryCredentialStore implements CredentialStore {
  constructor(private credentials: Credential[] = []) {}

  async list(): Promise<Credential[]> {
    return structuredClone(this.credentials);
  }

  async find(name: string): Promise<Credential | null> {
    return structuredClone(this.credentials.find((credential) => credential.name === name) ?? null);
  }

  async findById(id: string): Promise<Credential | null> {
    return structuredClone(this.credentials.find((credential) => credential.id === id) ?? null);
  }

  async add(credential: Credential): Promise<boolean> {
    if (this.credentials.some((known) => known.name === credential.name)) return false;
    this.credentials.push(structuredClone(credential));
    return true;
  }

  async remove(name: string): Promise<boolean> {
    const before = this.credentials.length;
    this.credentials = this.credentials.filter((credential) => credential.name !== name);
    return this.credentials.length < before;
  }
}
