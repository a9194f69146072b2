import type { MessagePort, Worker } from 'node:worker_threads';
import { onFirstUse } from './lazy-builtin.js';
import { FAILURE_CAUSES, pluginWorkerMain, REPLIES, type FailureCause, type WorkerCall, type WorkerReply } from './plugin-worker-main.js';

// Loaded on first use, not at start-up: a project without plugins never pays for worker_threads.
const threads = onFirstUse(() => require('node:worker_threads') as typeof import('node:worker_threads'));

const WORKER_SOURCE = `(${String(pluginWorkerMain)})(require);`;

/** How long the worker's own start may take: Node's, not plugin code, so not the plugin's time bound. */
const START_BOUND_MS = 10_000;

/** A call's outcome: the worker's reply, or nothing within the bound (the worker was then stopped). */
export type CallOutcome = WorkerReply | { seq: number; timeout: true };

interface Thread {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
  /** Replies read so far: the flag's value the next wait starts from. */
  read: number;
}

/**
 * A thread that runs plugin code, called synchronously with a deadline. The decision is needed in
 * the middle of a commit, under the project's lock, so the caller blocks on a shared flag
 * (Atomics.wait) for at most the plugin's time bound; a worker that overruns it, whatever it is
 * doing, is terminated and the next call starts a fresh one. The worker never keeps the process
 * alive, sees an empty environment, and its output goes to stderr (stdout holds one JSON value).
 */
export class PluginWorker {
  private thread: Thread | null = null;
  private seq = 0;

  call(call: WorkerRequest, timeoutMs: number): CallOutcome {
    const thread = this.running();
    const seq = ++this.seq;
    thread.port.postMessage({ ...call, seq });
    const reply = nextReply(thread, seq, timeoutMs);
    if (reply === null || 'exited' in reply) this.stop();
    return reply ?? { seq, timeout: true };
  }

  /** Ends the thread now (a pending plugin call included); the next call starts another. */
  stop(): void {
    if (this.thread === null) return;
    void this.thread.worker.terminate();
    this.thread.port.close();
    this.thread = null;
  }

  private running(): Thread {
    if (this.thread) return this.thread;
    const { MessageChannel, Worker } = threads();
    const { port1, port2 } = new MessageChannel();
    const replies = new SharedArrayBuffer(4);
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2, replies }, transferList: [port2], env: {} });
    worker.unref();
    // A worker that dies (the plugin's uncaught error) answers no more: the caller's bound covers it.
    worker.on('error', () => undefined);
    const thread: Thread = { worker, port: port1, flag: new Int32Array(replies), read: 0 };
    if (nextReply(thread, -1, START_BOUND_MS) === null) {
      void worker.terminate();
      throw new Error(`the plugin worker did not start within ${START_BOUND_MS} ms`);
    }
    this.thread = thread;
    return thread;
  }
}

/** The reply to call `seq`, or null once `timeoutMs` passed without it. */
function nextReply(thread: Thread, seq: number, timeoutMs: number): WorkerReply | null {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const received = threads().receiveMessageOnPort(thread.port);
    if (received) {
      thread.read += 1;
      const reply = replyOf(received.message);
      if (reply !== null && reply.seq === seq) return reply;
      continue;
    }
    const remaining = deadline - performance.now();
    if (remaining <= 0) return null;
    Atomics.wait(thread.flag, REPLIES, thread.read, remaining);
  }
}

/** A reply checked for its shape: the worker runs plugin code, so what it posts is checked like input. */
function replyOf(message: unknown): WorkerReply | null {
  if (typeof message !== 'object' || message === null) return null;
  const reply = message as Record<string, unknown>;
  if (typeof reply.seq !== 'number') return null;
  if (typeof reply.exited === 'number') return { seq: reply.seq, exited: reply.exited };
  if (reply.ok === true) return { seq: reply.seq, ok: true, value: reply.value };
  if (reply.ok === false && FAILURE_CAUSES.includes(reply.cause as FailureCause) && typeof reply.problem === 'string') {
    return { seq: reply.seq, ok: false, cause: reply.cause as FailureCause, problem: reply.problem };
  }
  return null;
}

/** A call as the runtime makes it: the worker numbers it. */
export type WorkerRequest = WorkerCall extends infer C ? (C extends unknown ? Omit<C, 'seq'> : never) : never;
