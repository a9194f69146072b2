import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import sinon from 'sinon';
import { SseHub, type EventSink } from '../../../adapters/server/sse-hub.js';

/** A response that reads as fast as we write, or stalls until `resume()`. */
class FakeSink extends EventEmitter implements EventSink {
  written: string[] = [];
  stalled = false;
  ended = false;
  write(chunk: string): boolean {
    this.written.push(chunk);
    return !this.stalled;
  }
  end(): void {
    this.ended = true;
  }
  resume(): void {
    this.stalled = false;
    this.emit('drain');
  }
  ids(): number[] {
    return this.written.flatMap((chunk) => (/^id: (\d+)/.exec(chunk) ? [Number(/^id: (\d+)/.exec(chunk)![1])] : []));
  }
  refreshes(): number {
    return this.written.filter((chunk) => chunk.startsWith('event: refresh')).length;
  }
}

const at = (revision: number, fence_generation = 1) => ({ revision, fence_generation });

describe('SseHub (revision notifications)', () => {
  const options = { maxSubscribers: 3, bufferSize: 4, historySize: 5, keepAliveMs: 1_000 };
  let sut: SseHub;
  afterEach(() => sut.close());

  it('sends every published revision with id: <revision> to every subscriber of the project, not others', () => {
    sut = new SseHub(options);
    const a = new FakeSink();
    const b = new FakeSink();
    sut.subscribe('p1', a, at(1), null);
    sut.subscribe('p2', b, at(7), null);
    sut.publish('p1', at(2));
    sut.publish('p1', at(3));
    expect(a.ids()).to.deep.equal([2, 3]);
    expect(b.ids()).to.deep.equal([]);
    expect(a.written.at(-1)).to.equal('id: 3\nevent: revision\ndata: {"revision":3,"fence_generation":1}\n\n');
  });

  it("says when a project's first stream opens and its last one closes, for each project, and nothing in between", () => {
    const watched: string[] = [];
    sut = new SseHub({ ...options, watched: (project, value) => watched.push(`${project} ${value}`) });
    const closeA = sut.subscribe('p1', new FakeSink(), at(1), null);
    const closeB = sut.subscribe('p2', new FakeSink(), at(1), null);
    const closeC = sut.subscribe('p2', new FakeSink(), at(1), null);
    expect(watched).to.deep.equal(['p1 true', 'p2 true']);
    closeA();
    closeA();
    expect(watched).to.deep.equal(['p1 true', 'p2 true', 'p1 false']);
    closeB();
    expect(watched).to.have.length(3);
    closeC();
    expect(watched).to.deep.equal(['p1 true', 'p2 true', 'p1 false', 'p2 false']);
    sut.subscribe('p1', new FakeSink(), at(1), null);
    expect(watched.at(-1)).to.equal('p1 true');
  });

  it('a reconnect with Last-Event-ID gets exactly what it missed, or one refresh when history does not reach back', () => {
    sut = new SseHub({ ...options, maxSubscribers: 10 });
    sut.subscribe('p1', new FakeSink(), at(1), null);
    for (let revision = 2; revision <= 9; revision++) sut.publish('p1', at(revision));
    const recent = new FakeSink();
    sut.subscribe('p1', recent, at(9), 6);
    expect(recent.ids()).to.deep.equal([7, 8, 9]);
    expect(recent.refreshes()).to.equal(0);
    const old = new FakeSink();
    sut.subscribe('p1', old, at(9), 2);
    expect(old.ids()).to.deep.equal([]);
    expect(old.refreshes()).to.equal(1);
    const current = new FakeSink();
    sut.subscribe('p1', current, at(9), 9);
    expect(current.ids().concat(current.refreshes())).to.deep.equal([0]);
    const ahead = new FakeSink();
    sut.subscribe('p1', ahead, at(2, 2), 9);
    expect(ahead.refreshes()).to.equal(1);
  });

  it('a subscriber that stops reading holds a bounded buffer, then one refresh, then live events again', () => {
    sut = new SseHub(options);
    const slow = new FakeSink();
    sut.subscribe('p1', slow, at(1), null);
    slow.stalled = true;
    sut.publish('p1', at(2));
    const writtenWhileStalled = slow.written.length;
    for (let revision = 3; revision <= 1_000; revision++) sut.publish('p1', at(revision));
    expect(slow.written.length).to.equal(writtenWhileStalled);
    slow.resume();
    expect(slow.refreshes()).to.equal(1);
    expect(slow.ids().filter((id) => id > 2)).to.deep.equal([]);
    sut.publish('p1', at(1_001));
    expect(slow.ids().at(-1)).to.equal(1_001);
  });

  it('caps subscribers, and closing a stream frees its place; close() ends every stream', () => {
    sut = new SseHub(options);
    const sinks = [new FakeSink(), new FakeSink(), new FakeSink()];
    const closers = sinks.map((sink) => sut.subscribe('p1', sink, at(1), null));
    expect(() => sut.subscribe('p1', new FakeSink(), at(1), null)).to.throw().with.property('code', 'INVALID_ARGUMENT');
    closers[0]!();
    closers[0]!();
    expect(sut.size).to.equal(2);
    sut.subscribe('p1', new FakeSink(), at(1), null);
    sut.close();
    expect(sut.size).to.equal(0);
    expect(sinks.slice(1).every((sink) => sink.ended)).to.equal(true);
  });

  it('sends a keep-alive comment on every stream at each interval', () => {
    const clock = sinon.useFakeTimers();
    sut = new SseHub(options);
    const sink = new FakeSink();
    sut.subscribe('p1', sink, at(1), null);
    clock.tick(3_000);
    expect(sink.written.filter((chunk) => chunk === ': keep-alive\n\n')).to.have.length(3);
  });
});
