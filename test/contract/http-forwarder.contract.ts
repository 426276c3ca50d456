import { expect } from 'chai';
import type { HttpForwarder } from '../../src/ports/http-forwarder.js';
import { waitFor } from '../support/http.js';

/** A peer the suite drives: answers in turn with the given statuses, recording what it received. */
export interface ScriptedPeer {
  readonly url: string;
  /**
   * Statuses to answer with, in order; the last one repeats. 'drop' closes the connection
   * without answering, 'hang' never answers, 'endless' answers 200 with a body that never ends.
   */
  script(statuses: Array<number | 'drop' | 'hang' | 'endless'>): void;
  received(): Array<{ method: string; headers: Record<string, string | string[] | undefined>; body: string }>;
  close(): Promise<void>;
}

/**
 * The behaviour every HttpForwarder adapter must have. `make` builds the adapter with
 * 3 attempts and tiny backoff, so the suite stays fast.
 */
export const describeHttpForwarderContract = (name: string, make: () => HttpForwarder, openPeer: () => Promise<ScriptedPeer>): void => {
  describe(`HttpForwarder contract: ${name}`, () => {
    let forwarder: HttpForwarder;
    let peer: ScriptedPeer;
    beforeEach(async () => {
      forwarder = make();
      peer = await openPeer();
    });
    afterEach(async () => peer.close());

    it('POSTs the JSON body with exactly the given headers plus content-type', async () => {
      peer.script([200]);
      const result = await forwarder.send({ url: `${peer.url}/hook`, method: 'POST', headers: { 'X-Token': 'abc' }, json: { a: 1, data: { b: [2] } } });
      expect(result).to.deep.equal({ ok: true, status: 200, attempts: 1 });
      const [request] = peer.received();
      expect(request.method).to.equal('POST');
      expect(JSON.parse(request.body)).to.deep.equal({ a: 1, data: { b: [2] } });
      expect(request.headers['x-token']).to.equal('abc');
      expect(request.headers['content-type']).to.equal('application/json');
    });

    it('sends a GET with no body and no content-type', async () => {
      peer.script([204]);
      const result = await forwarder.send({ url: `${peer.url}/hook?x=1`, method: 'GET', headers: {} });
      expect(result.ok).to.equal(true);
      const [request] = peer.received();
      expect(request).to.include({ method: 'GET', body: '' });
      expect(request.headers).not.to.have.property('content-type');
    });

    it('retries 5xx and 429 until a success', async () => {
      peer.script([503, 429, 200]);
      expect(await forwarder.send({ url: peer.url, method: 'POST', headers: {}, json: {} })).to.deep.equal({ ok: true, status: 200, attempts: 3 });
      expect(peer.received()).to.have.length(3);
    });

    it('gives up after the attempt limit and says why', async () => {
      peer.script([500]);
      expect(await forwarder.send({ url: peer.url, method: 'POST', headers: {}, json: {} })).to.deep.equal({
        ok: false,
        status: 500,
        attempts: 3,
        error: 'HTTP 500',
      });
    });

    it('does not retry other 4xx answers', async () => {
      peer.script([404]);
      expect(await forwarder.send({ url: peer.url, method: 'POST', headers: {}, json: {} })).to.deep.equal({
        ok: false,
        status: 404,
        attempts: 1,
        error: 'HTTP 404',
      });
      expect(peer.received()).to.have.length(1);
    });

    it('retries a dropped connection and never throws', async () => {
      peer.script(['drop', 200]);
      const result = await forwarder.send({ url: peer.url, method: 'POST', headers: {}, json: {} });
      expect(result).to.deep.equal({ ok: true, status: 200, attempts: 2 });
    });

    it("names the host of a peer it could not reach, never the URL's path or query (a webhook URL may be its secret)", async () => {
      peer.script(['drop']);
      const result = await forwarder.send({ url: `${peer.url}/services/T000/B000/path-secret-42?token=query-secret`, method: 'POST', headers: {}, json: {} });
      expect(result).to.include({ ok: false, status: null, attempts: 3 });
      expect(result.error).to.contain(new URL(peer.url).host);
      for (const secret of ['path-secret-42', 'query-secret', 'services/T000']) expect(result.error).not.to.contain(secret);
    });

    it('cuts off the attempt under way when its signal aborts, and makes none after it', async () => {
      peer.script(['hang']);
      const stop = new AbortController();
      const sending = forwarder.send({ url: peer.url, method: 'POST', headers: {}, json: {} }, stop.signal);
      await waitFor(() => peer.received().length === 1, 5_000, 'the first attempt to arrive');
      stop.abort(new Error('the task queue took this task back'));
      expect(await sending).to.include({ ok: false, status: null, attempts: 1, aborted: true });
      expect(peer.received()).to.have.length(1);
    });

    it('makes no attempt when its signal has already aborted', async () => {
      peer.script([200]);
      const stop = new AbortController();
      stop.abort(new Error('stopped'));
      expect(await forwarder.send({ url: peer.url, method: 'POST', headers: {}, json: {} }, stop.signal)).to.include({ ok: false, attempts: 0, aborted: true });
      expect(peer.received()).to.have.length(0);
    });

    it('takes the status of an answer whose body never ends, without waiting for the body (only the status counts)', async () => {
      peer.script(['endless']);
      expect(await forwarder.send({ url: peer.url, method: 'POST', headers: {}, json: {} })).to.deep.equal({ ok: true, status: 200, attempts: 1 });
      expect(peer.received()).to.have.length(1);
    });
  });
};
