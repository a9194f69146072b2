import { expect } from 'chai';
import { earlierAnswer, REQUEST_WINDOW, RequestWindow, type RememberedRequest } from '../../domain/request-window.js';
import { rejectionOf } from '../support/failures.js';

const T0 = Date.parse('2026-11-25T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const request = (id: string, ms = 0, fingerprint = 'f'): RememberedRequest => ({ id, fingerprint, at: at(ms), answer: { id } });

describe('RequestWindow (retries that never apply twice)', () => {
  it('recalls a request by id until REQUEST_WINDOW.maxAgeMs has passed, then no more', () => {
    const sut = new RequestWindow([request('a')]);
    expect(sut.recall('a', at(REQUEST_WINDOW.maxAgeMs - 1))?.answer).to.deep.equal({ id: 'a' });
    expect(sut.recall('a', at(REQUEST_WINDOW.maxAgeMs))).to.equal(undefined);
    expect(sut.recall('b', at(0))).to.equal(undefined);
  });

  it('keeps at most REQUEST_WINDOW.maxIds ids, forgetting the oldest first', () => {
    const sut = new RequestWindow();
    for (let index = 0; index <= REQUEST_WINDOW.maxIds; index++) sut.remember(request(`r-${index}`, index));
    const now = at(REQUEST_WINDOW.maxIds);
    expect(sut.entries()).to.have.length(REQUEST_WINDOW.maxIds);
    expect(sut.recall('r-0', now)).to.equal(undefined);
    expect(sut.recall('r-1', now)?.id).to.equal('r-1');
    expect(sut.recall(`r-${REQUEST_WINDOW.maxIds}`, now)?.id).to.equal(`r-${REQUEST_WINDOW.maxIds}`);
  });

  it('forgets what is past the age bound as soon as a newer request is remembered', () => {
    const sut = new RequestWindow([request('old'), request('new', REQUEST_WINDOW.maxAgeMs - 1)]);
    sut.remember(request('newest', REQUEST_WINDOW.maxAgeMs));
    expect(sut.entries().map((kept) => kept.id)).to.deep.equal(['new', 'newest']);
  });

  it('undoing a remember puts back exactly what was there, what it made forget included', () => {
    const sut = new RequestWindow([request('old'), request('kept', 1)]);
    const undo = sut.remember(request('newest', REQUEST_WINDOW.maxAgeMs));
    expect(sut.entries().map((kept) => kept.id)).to.deep.equal(['kept', 'newest']);
    undo();
    expect(sut.entries()).to.deep.equal([request('old'), request('kept', 1)]);
  });

  it('earlierAnswer: the first answer for the same request, null for an unknown id, REQUEST_ID_REUSED for another request', async () => {
    const sut = new RequestWindow([request('a', 0, 'add-task T-1')]);
    expect(earlierAnswer(sut, { id: 'a', fingerprint: 'add-task T-1' }, at(1))).to.deep.equal({ answer: { id: 'a' } });
    expect(earlierAnswer(sut, { id: 'b', fingerprint: 'add-task T-1' }, at(1))).to.equal(null);
    const reused = await rejectionOf(async () => earlierAnswer(sut, { id: 'a', fingerprint: 'add-task T-2' }, at(1)));
    expect(reused.code).to.equal('REQUEST_ID_REUSED');
    expect(reused.details).to.deep.equal({ request_id: 'a', first_at: at(0) });
  });
});
