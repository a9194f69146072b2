/**
 * What must end when the server stops: live streams register here (the next routes, SSE) and
 * are closed at the start of a graceful shutdown, before in-flight requests are drained.
 */
export class ShutdownHooks {
  private readonly hooks = new Set<() => void>();
  stopping = false;

  /** Registers `hook`; the returned function unregisters it (call it when the stream ends). */
  add(hook: () => void): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  run(): void {
    this.stopping = true;
    for (const hook of [...this.hooks]) hook();
    this.hooks.clear();
  }
}
