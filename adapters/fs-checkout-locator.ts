import { nodeFileSystem } from './file-system.js';
import fs from 'graceful-fs';
import path from 'node:path';
import { DomainError } from '../domain/errors.js';
import { isProjectId } from '../domain/ids.js';
import { REVIEW_RULES, type ReviewRule } from '../domain/model.js';
import type { Backend, Checkout, CheckoutLocator, RetiredMarker } from '../application/ports/checkout.js';
import { createFileExclusive, writeFileAtomic } from './durable-files.js';
import { readJsonObject } from './private-files.js';
import { storageError } from './storage-error.js';

export const CHECKOUT_FILE = '.taskdag.json';

/**
 * Finds `.taskdag.json`: in the `--project` directory when one is given, otherwise in the working
 * directory or the nearest parent that has one (as git finds its repository).
 */
export class FsCheckoutLocator implements CheckoutLocator {
  constructor(
    private readonly cwd: string,
    private readonly projectFlag: string | undefined,
  ) {}

  root(): string {
    return this.projectFlag ? path.resolve(this.cwd, this.projectFlag) : this.cwd;
  }

  find(): Checkout | null {
    const start = this.root();
    if (this.projectFlag) return readCheckout(start);
    for (let dir = start; ; dir = path.dirname(dir)) {
      const checkout = readCheckout(dir);
      if (checkout) return checkout;
      if (path.dirname(dir) === dir) return null;
    }
  }

  create(projectId: string): Checkout {
    const root = this.root();
    const file = path.join(root, CHECKOUT_FILE);
    let created: boolean;
    try {
      fs.mkdirSync(root, { recursive: true });
      created = createFileExclusive(file, JSON.stringify({ project_id: projectId }, null, 2) + '\n');
    } catch (error) {
      throw storageError('Cannot write the checkout file', error, { path: file });
    }
    // Two `init`s racing in one directory agree on the first one's project.
    return created ? { root, project_id: projectId, backend: null, retired: null } : readCheckout(root)!;
  }

  save(root: string, projectId: string, backend: Backend | null): Checkout {
    const file = path.join(root, CHECKOUT_FILE);
    try {
      const { project_id: _id, backend: _backend, [RETIRED_FIELD]: _retired, ...others } = readObject(file) ?? {};
      const record = { project_id: projectId, ...(backend ? { backend: { type: backend.type, url: backend.url } } : {}), ...others };
      fs.mkdirSync(root, { recursive: true });
      // The checkout file is shared through git: readable by all, like any file in a repository.
      writeFileAtomic(nodeFileSystem, file, JSON.stringify(record, null, 2) + '\n', 0o644);
    } catch (error) {
      throw error instanceof DomainError ? error : storageError('Cannot write the checkout file', error, { path: file });
    }
    return { root, project_id: projectId, backend, retired: null };
  }
}

/** The field a pre-v1 client wrote (docs/remote.md), in `backend` or at the top level. */
const RETIRED_FIELD = 'protocol_version';

function readCheckout(dir: string): Checkout | null {
  const file = path.join(dir, CHECKOUT_FILE);
  const value = readObject(file);
  if (value === null) return null;
  if (!isProjectId(value.project_id)) {
    throw invalidCheckout(file, 'project_id is missing or not a valid id');
  }
  const review = readReview(value.review, file);
  return { root: dir, project_id: value.project_id, backend: readBackend(value.backend, file), retired: retiredMarker(value), ...(review ? { review } : {}) };
}

/** The project's review rule, when the checkout sets one; anything but a known rule is refused rather than read as the default. */
function readReview(value: unknown, file: string): ReviewRule | null {
  if (value === undefined) return null;
  if (!(REVIEW_RULES as readonly unknown[]).includes(value)) throw invalidCheckout(file, `review must be one of ${REVIEW_RULES.join(', ')}`);
  return value as ReviewRule;
}

function retiredMarker(value: Record<string, unknown>): RetiredMarker | null {
  const backend = value.backend as Record<string, unknown> | undefined | null;
  if (backend && RETIRED_FIELD in backend) return { field: `backend.${RETIRED_FIELD}`, value: backend[RETIRED_FIELD] };
  if (RETIRED_FIELD in value) return { field: RETIRED_FIELD, value: value[RETIRED_FIELD] };
  return null;
}

function readObject(file: string): Record<string, unknown> | null {
  return readJsonObject(file, invalidCheckout, 'the checkout file');
}

function readBackend(value: unknown, file: string): Backend | null {
  if (value === undefined || value === null) return null;
  const backend = value as Record<string, unknown>;
  if (typeof backend !== 'object' || typeof backend.type !== 'string' || typeof backend.url !== 'string') {
    throw invalidCheckout(file, 'backend must be an object with a type and a url');
  }
  return { type: backend.type, url: backend.url };
}

function invalidCheckout(file: string, problem: string): DomainError {
  return new DomainError('STORAGE_ERROR', `${file} is invalid: ${problem}`, { cause: 'EINVALID', path: file, problem });
}
