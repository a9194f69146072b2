import type { MessagePort } from 'node:worker_threads';

/** What the runtime asks the worker: load a module, check data with it, or have it decide. */
export type WorkerCall =
  | { seq: number; kind: 'load'; module: string }
  | { seq: number; kind: 'check-data'; module: string; data: unknown }
  | { seq: number; kind: 'decide'; module: string; request: unknown };

/** What a module declares about itself, copied into plain values (null: not a string, number or boolean). */
export interface ModuleFacts {
  name: string | number | boolean | null;
  apiVersion: string | number | boolean | null;
  /** `typeof` its decide and checkData. */
  decide: string;
  checkData: string;
}

/**
 * The worker's answer, plain data: `value` is the call's (a module's facts, a data check's problem
 * or null, a decision); a failure names its cause (docs/plugins.md). `exited` is posted when the
 * plugin ended the worker itself.
 */
export type WorkerReply = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; cause: FailureCause; problem: string } | { seq: number; exited: number };

/** Why plugin code gave no answer; `incompatible`: the module exports no plugin object. */
export const FAILURE_CAUSES = ['missing', 'load-failed', 'threw', 'bad-answer', 'scheduled', 'incompatible'] as const;
export type FailureCause = (typeof FAILURE_CAUSES)[number];

/** Slot 0 of the shared flag: how many replies (or an exit) the worker has posted. */
export const REPLIES = 0;

/**
 * The body of the thread that runs plugin code. It is sent to the worker as source text
 * (`String(pluginWorkerMain)`), so it must stand alone: it reaches Node only through `req`.
 *
 * Every touch of plugin code and of what it returns happens here, never on the caller's thread,
 * so a getter, a `toJSON` or a `then` that loops is stopped with the thread. The answer is copied
 * into plain values before it leaves. A plugin cannot schedule work (timers fail and mark the
 * call), and the reply goes out only after the microtasks the call queued have run, so a promise
 * chain that loops runs past the time bound instead of after the answer.
 */
export function pluginWorkerMain(req: NodeRequire): void {
  const threads = req('node:worker_threads') as typeof import('node:worker_threads');
  const { port, replies } = threads.workerData as { port: MessagePort; replies: SharedArrayBuffer };
  const flag = new Int32Array(replies);
  const later = setImmediate;
  const modules = new Map<string, Record<string, unknown>>();
  let current = -1;
  let scheduled: string | null = null;

  const post = (reply: unknown) => {
    port.postMessage(reply);
    Atomics.add(flag, 0, 1);
    Atomics.notify(flag, 0);
  };
  process.on('exit', (code) => post({ seq: current, exited: code }));
  // The command's stdout holds its one JSON value: what a plugin prints goes to stderr.
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

  const refuse = (name: string) =>
    function () {
      scheduled ??= name;
      throw new Error(`plugins answer synchronously: ${name} is not available to them`);
    };
  const timers = req('node:timers') as Record<string, unknown>;
  const timerPromises = req('node:timers/promises') as Record<string, unknown>;
  for (const name of ['setTimeout', 'setInterval', 'setImmediate']) {
    (globalThis as Record<string, unknown>)[name] = refuse(name);
    timers[name] = refuse(name);
    timerPromises[name] = refuse(`timers/promises ${name}`);
  }

  class Failure {
    constructor(
      readonly cause: FailureCause,
      readonly problem: string,
    ) {}
  }
  const text = (value: unknown): string => {
    try {
      const json = JSON.stringify(value);
      return (json === undefined ? String(value) : json).slice(0, 200);
    } catch {
      return typeof value;
    }
  };
  const messageOf = (error: unknown): string => {
    try {
      return error instanceof Error ? String(error.message).split('\n')[0]!.slice(0, 500) : text(error);
    } catch {
      return 'it threw something that cannot be described';
    }
  };
  const freeze = (value: unknown): unknown => {
    if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
      Object.freeze(value);
      for (const inner of Object.values(value)) freeze(inner);
    }
    return value;
  };
  const plain = (value: unknown): unknown => (['string', 'number', 'boolean'].includes(typeof value) ? value : null);

  const load = (module: string): Record<string, unknown> => {
    const known = modules.get(module);
    if (known) return known;
    let resolved: string;
    try {
      resolved = req.resolve(module);
    } catch {
      throw new Failure('missing', 'its module is not there');
    }
    let exported: unknown;
    try {
      exported = req(resolved);
    } catch (error) {
      throw new Failure('load-failed', messageOf(error));
    }
    const value = (exported as { default?: unknown } | null)?.default ?? exported;
    if (typeof value !== 'object' || value === null) throw new Failure('incompatible', 'it exports no plugin object');
    modules.set(module, value as Record<string, unknown>);
    return value as Record<string, unknown>;
  };
  const facts = (exported: Record<string, unknown>) => ({
    name: plain(exported.name),
    apiVersion: plain(exported.apiVersion),
    decide: typeof exported.decide,
    checkData: typeof exported.checkData,
  });
  const invoke = (exported: Record<string, unknown>, method: string, argument: unknown): unknown => {
    try {
      return (exported[method] as (argument: unknown) => unknown).call(exported, freeze(argument));
    } catch (error) {
      throw new Failure('threw', messageOf(error));
    }
  };
  const dataProblem = (problem: unknown): string | null => {
    if (problem === undefined || problem === null || problem === true) return null;
    return typeof problem === 'string' ? problem.slice(0, 1000) : 'its checkData rejected it';
  };
  const decision = (answer: unknown): unknown => {
    const bad = (what: string) => new Failure('bad-answer', `decide answered ${what}, not {allow: true} or {allow: false, reason}`);
    if (typeof answer !== 'object' || answer === null) throw bad(text(answer));
    const { allow, reason, then } = answer as { allow?: unknown; reason?: unknown; then?: unknown };
    if (typeof then === 'function') throw bad('a promise or a thenable (decide must answer at once)');
    if (allow === true) return { allow: true };
    if (allow === false && typeof reason === 'string' && reason.trim() !== '') return { allow: false, reason: reason.slice(0, 1000) };
    throw bad(text(answer));
  };

  const answer = (call: WorkerCall): unknown => {
    const exported = load(call.module);
    if (call.kind === 'load') return facts(exported);
    if (call.kind === 'check-data') return dataProblem(invoke(exported, 'checkData', call.data));
    return decision(invoke(exported, 'decide', call.request));
  };

  port.on('message', (call: WorkerCall) => {
    current = call.seq;
    scheduled = null;
    let reply: WorkerReply;
    try {
      reply = { seq: call.seq, ok: true, value: answer(call) };
    } catch (error) {
      const failure = error instanceof Failure ? error : new Failure('threw', messageOf(error));
      reply = { seq: call.seq, ok: false, cause: failure.cause, problem: failure.problem };
    }
    later(() => {
      if (scheduled !== null) reply = { seq: call.seq, ok: false, cause: 'scheduled', problem: `it called ${scheduled}: plugins answer synchronously` };
      post(reply);
    });
  });
  post({ seq: -1, ok: true, value: 'ready' });
}
