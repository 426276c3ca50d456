import { expect } from 'chai';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { codehostTriggerWarnings } from '../../../../src/domain/triggers/codehost-trigger-warnings.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';

describe('codehostTriggerWarnings', () => {
  const triggersOf = (entries: object[]) => {
    const { triggers, problems } = validateTriggers(entries, 'TRIGGERS.json', triggerCatalog());
    expect(problems).to.deep.equal([]);
    return triggers;
  };
  const agent = { type: 'agent', job: 'Fix {{body.issue.title}}' };

  it('warns of an enabled code-host trigger with an agent action and no when: every event of the repository starts a job', () => {
    const warnings = codehostTriggerWarnings(triggersOf([{ name: 'every-event', watch_path: '/codehost/webhook', enabled: true, actions: [agent] }]));
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include('"every-event"').and.to.include('no "when"').and.to.include('starts a job');
  });

  it('is silent for one with a when, without an agent action, disabled, or on another endpoint', () => {
    expect(
      codehostTriggerWarnings(
        triggersOf([
          { name: 'issues', watch_path: '/codehost/webhook', enabled: true, when: { 'headers.x-github-event': { equals: 'issues' } }, actions: [agent] },
          { name: 'command', watch_path: '/codehost/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
          { name: 'off', watch_path: '/codehost/webhook', enabled: false, actions: [agent] },
          { name: 'other', watch_path: '/webhook', enabled: true, actions: [agent] },
        ]),
      ),
    ).to.deep.equal([]);
  });
});
