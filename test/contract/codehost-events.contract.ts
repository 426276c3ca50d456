import { expect } from 'chai';
import type { CodehostEvents } from '../../src/ports/codehost-events.js';

/** Where an event happened: the repository it names, and the repository of its branch (a fork's own); the run's workflow. */
export interface EventOrigin {
  readonly repository?: string;
  readonly headRepository?: string;
  /** The workflow (its file name) a run is of; the agent's by default. */
  readonly workflow?: string;
}

export type RunState = 'started' | 'success' | 'failure' | 'cancelled' | 'skipped';

/** A code host, as the contract needs it to play the platform: its events in neutral terms. */
export interface CodehostPlatform {
  /** The adapter for the jobs' repository `repo` and the agent's workflow `workflow`; without them, for any repository's own branches. */
  events(jobs?: { readonly repo: string; readonly workflow: string }): CodehostEvents;
  /** The platform's event (name and payload) of a run on `branch` that started, or completed with that outcome; `url` is the run's page. */
  run(branch: string, state: RunState, url: string, origin?: EventOrigin): [string, unknown];
  /** The platform's event of a pull request opened from `branch`, `url` its page. */
  pullRequest(branch: string, url: string, origin?: EventOrigin): [string, unknown];
  /** The names of the platform's event types that never concern a job (a push, an issue, a ping…). */
  readonly otherEvents: readonly string[];
}

const JOB = '4f1c2a3b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const REPO = 'acme/app';
const WORKFLOW = 'agent-job.yml';
const RUN_URL = 'https://codehost.test/acme/app/runs/9';
const PR_URL = 'https://codehost.test/acme/app/pull/3';

/** The behaviour every CodehostEvents adapter must have: which events move which job, and how. */
export const describeCodehostEventsContract = (name: string, platform: CodehostPlatform): void => {
  describe(`CodehostEvents contract: ${name}`, () => {
    const configured = platform.events({ repo: REPO, workflow: WORKFLOW });
    const anyRepository = platform.events();
    const here: EventOrigin = { repository: REPO, headRepository: REPO };
    const update = (events: CodehostEvents, [event, payload]: [string, unknown]) => events.jobUpdate(event, payload);

    it("tells the job of a job/<id> branch that the agent's run started, with the run's page", () => {
      expect(update(configured, platform.run(`job/${JOB}`, 'started', RUN_URL, here))).to.deep.equal({
        jobId: JOB,
        change: { status: 'running', runUrl: RUN_URL },
      });
    });

    it('tells how the run ended: succeeded, failed or cancelled', () => {
      const ended = (state: RunState) => update(configured, platform.run(`job/${JOB}`, state, RUN_URL, here));
      expect(ended('success')).to.deep.equal({ jobId: JOB, change: { status: 'succeeded', runUrl: RUN_URL } });
      expect(ended('failure')).to.deep.equal({ jobId: JOB, change: { status: 'failed', runUrl: RUN_URL } });
      expect(ended('cancelled')).to.deep.equal({ jobId: JOB, change: { status: 'cancelled', runUrl: RUN_URL } });
    });

    it("takes a run whose jobs all skipped (a push after the agent's work started it again) for no news, neither failed nor finished", () => {
      expect(update(configured, platform.run(`job/${JOB}`, 'skipped', RUN_URL, here))).to.equal(null);
    });

    it("tells the job its pull request's page", () => {
      expect(update(configured, platform.pullRequest(`job/${JOB}`, PR_URL, here))).to.deep.equal({ jobId: JOB, change: { prUrl: PR_URL } });
    });

    it("reads the job's id in lower case, whatever the branch's case", () => {
      expect(update(configured, platform.run(`job/${JOB.toUpperCase()}`, 'started', RUN_URL, here))?.jobId).to.equal(JOB);
    });

    it('is about no job for a branch that is not job/<id>', () => {
      for (const branch of [
        'main',
        `${JOB}`,
        'job/',
        'job/not-an-id',
        `job/${JOB}x`,
        `job/${JOB.slice(1)}`,
        `xjob/${JOB}`,
        `job/${JOB}/more`,
        `feature/job/${JOB}`,
      ]) {
        expect(update(configured, platform.run(branch, 'success', RUN_URL, here)), `run on ${branch}`).to.equal(null);
        expect(update(configured, platform.pullRequest(branch, PR_URL, here)), `pull request from ${branch}`).to.equal(null);
      }
    });

    it("is about no job for a fork's branch, nor, once the jobs' repository is set, another repository's", () => {
      const fork: EventOrigin = { repository: REPO, headRepository: 'mallory/app' };
      for (const events of [configured, anyRepository]) {
        expect(update(events, platform.run(`job/${JOB}`, 'success', RUN_URL, fork)), 'a run of a fork').to.equal(null);
        expect(update(events, platform.pullRequest(`job/${JOB}`, PR_URL, fork)), 'a pull request from a fork').to.equal(null);
      }
      const elsewhere: EventOrigin = { repository: 'acme/other', headRepository: 'acme/other' };
      expect(update(configured, platform.run(`job/${JOB}`, 'success', RUN_URL, elsewhere))).to.equal(null);
      expect(update(configured, platform.pullRequest(`job/${JOB}`, PR_URL, elsewhere))).to.equal(null);
      expect(update(anyRepository, platform.run(`job/${JOB}`, 'success', RUN_URL, elsewhere))?.jobId, 'no repository set: any').to.equal(JOB);
    });

    it("is about no job for a run of another workflow (the repository's CI) once the agent's is set", () => {
      const ci: EventOrigin = { ...here, workflow: 'ci.yml' };
      expect(update(configured, platform.run(`job/${JOB}`, 'failure', RUN_URL, ci))).to.equal(null);
      expect(update(anyRepository, platform.run(`job/${JOB}`, 'failure', RUN_URL, ci))?.change, 'no workflow set: any').to.include({ status: 'failed' });
    });

    it('is about no job for the event types it does not read, nor for a payload of any other shape, and never throws', () => {
      const [runEvent, runPayload] = platform.run(`job/${JOB}`, 'success', RUN_URL, here);
      const [prEvent, prPayload] = platform.pullRequest(`job/${JOB}`, PR_URL, here);
      for (const event of platform.otherEvents) {
        expect(configured.jobUpdate(event, runPayload), event).to.equal(null);
        expect(configured.jobUpdate(event, prPayload), event).to.equal(null);
      }
      for (const event of [runEvent, prEvent, ...platform.otherEvents, '']) {
        for (const payload of [null, undefined, 'text', 42, [], {}, { repository: null }, [runPayload]]) {
          expect(configured.jobUpdate(event, payload), `${event}: ${JSON.stringify(payload)}`).to.equal(null);
        }
      }
    });
  });
};
