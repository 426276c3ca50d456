/** What a top-level field of a payload must be: present with a value of that kind (`present`: any, null too). */
type Kind = 'object' | 'array' | 'string' | 'number' | 'present';

/**
 * The top-level fields GitHub always sends with each of these events, in every variant (action)
 * of it (checked against @octokit/webhooks-types' payload types, null and optional fields
 * included, and the example payloads of @octokit/webhooks-examples, every one of which passes
 * with its own event name: test/unit/adapters/codehost/github-event-shapes.test.ts). Only
 * fields that set the event apart: `action`, `repository`, `sender` and the like are everyone's.
 * Events not listed (GitHub has many, and adds more) take any payload but a listed event's.
 */
const SHAPES: Readonly<Record<string, Readonly<Record<string, Kind>>>> = {
  ping: { zen: 'string', hook_id: 'number' },
  push: { ref: 'string', commits: 'array' },
  create: { ref: 'string', ref_type: 'string', master_branch: 'string', pusher_type: 'string' },
  delete: { ref: 'string', ref_type: 'string', pusher_type: 'string' },
  pull_request: { pull_request: 'object', number: 'number' },
  pull_request_review: { pull_request: 'object', review: 'object' },
  pull_request_review_comment: { pull_request: 'object', comment: 'object' },
  pull_request_review_thread: { pull_request: 'object', thread: 'object' },
  issues: { issue: 'object' },
  issue_comment: { issue: 'object', comment: 'object' },
  commit_comment: { comment: 'object' },
  discussion: { discussion: 'object' },
  discussion_comment: { discussion: 'object', comment: 'object' },
  workflow_run: { workflow_run: 'object' },
  workflow_job: { workflow_job: 'object' },
  workflow_dispatch: { ref: 'string', workflow: 'string' },
  // approved and rejected have no top-level environment; requested may have workflow_run null.
  deployment_review: { since: 'string', workflow_run: 'present' },
  check_suite: { check_suite: 'object' },
  check_run: { check_run: 'object' },
  status: { sha: 'string', state: 'string', context: 'string', commit: 'object' },
  deployment: { deployment: 'object' },
  deployment_status: { deployment: 'object', deployment_status: 'object' },
  release: { release: 'object' },
  fork: { forkee: 'object' },
  star: { starred_at: 'present' },
  gollum: { pages: 'array' },
  merge_group: { merge_group: 'object' },
};

/**
 * Fields a payload of these events never has, which another event's payload carries along with
 * all of theirs: a deployment made by a workflow run (`deployment`, `workflow_run`, `workflow`),
 * a deployment status reported by a check run, a workflow job of a deployment, a
 * deployment_protection_rule (a `deployment` too, with the `deployment_callback_url` to answer,
 * the `environment`, the `event` and the `pull_requests`, each optional in GitHub's schema).
 */
const NEVER_WITH: Readonly<Record<string, readonly string[]>> = {
  workflow_run: ['deployment'],
  check_run: ['deployment_status'],
  deployment: ['workflow_job', 'deployment_callback_url', 'environment', 'event', 'pull_requests'],
};

const CHECKED: readonly string[] = Object.keys(SHAPES);

const isKind = (value: unknown, kind: Kind): boolean => {
  switch (kind) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'present':
      return true;
    default:
      return typeof value === kind;
  }
};

const KIND_NAMES: Readonly<Record<Kind, string>> = { object: 'an object', array: 'an array', string: 'a string', number: 'a number', present: 'present' };

/** The first field of `shape` the payload lacks (or has of another kind), as `commits (an array)`. */
const missingField = (payload: Readonly<Record<string, unknown>>, shape: Readonly<Record<string, Kind>>): string | undefined => {
  for (const [field, kind] of Object.entries(shape)) {
    if (!Object.hasOwn(payload, field) || !isKind(payload[field], kind)) return `${field} (${KIND_NAMES[kind]})`;
  }
  return undefined;
};

/**
 * Events whose fields include all of `event`'s and more (issue_comment for issues: an issue and
 * a comment): a payload with all of those is that more specific event's, not `event`'s.
 */
const MORE_SPECIFIC: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(SHAPES).map(([event, shape]) => {
    const fields = Object.keys(shape);
    const wider = Object.entries(SHAPES).filter(
      ([other, otherShape]) => other !== event && Object.keys(otherShape).length > fields.length && fields.every((field) => Object.hasOwn(otherShape, field)),
    );
    return [event, wider.map(([other]) => other)];
  }),
);

/**
 * Why a verified payload cannot be the event its X-GitHub-Event header names (the header is not
 * covered by the signature: a captured body could be sent again as another event), or undefined
 * when it can be. An event not checked here (`watch`, `label`, `Push`, one GitHub adds later)
 * takes any payload but a checked event's: a captured `ping` (every webhook's first delivery) or
 * `workflow_dispatch` sent again as `watch` would otherwise fire `watch`'s triggers under each new
 * delivery id. No example payload of an event passes another's check (the shapes test), so a
 * real delivery of an unchecked event never does.
 */
export const githubEventMismatch = (event: string, payload: unknown): string | undefined => {
  const shape = Object.hasOwn(SHAPES, event) ? SHAPES[event] : undefined;
  if (shape === undefined) {
    const theirs = CHECKED.find((checked) => githubEventMismatch(checked, payload) === undefined);
    return theirs === undefined ? undefined : `X-GitHub-Event ${event} does not match the payload: it is a payload of ${theirs}`;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    return `X-GitHub-Event ${event} does not match the payload: it is not a JSON object`;
  const fields = payload as Readonly<Record<string, unknown>>;
  const missing = missingField(fields, shape);
  if (missing !== undefined) return `X-GitHub-Event ${event} does not match the payload: it has no ${missing}`;
  const foreign = NEVER_WITH[event]?.find((field) => Object.hasOwn(fields, field));
  if (foreign !== undefined) return `X-GitHub-Event ${event} does not match the payload: it has a ${foreign}, which ${event} payloads never have`;
  const other = MORE_SPECIFIC[event]?.find((wider) => missingField(fields, SHAPES[wider] as Record<string, Kind>) === undefined);
  if (other !== undefined) return `X-GitHub-Event ${event} does not match the payload: it is a payload of ${other}`;
  return undefined;
};

/** The events whose payloads are checked (githubEventMismatch); any other takes any payload but theirs. */
export const CHECKED_GITHUB_EVENTS: readonly string[] = CHECKED;

/**
 * The events whose every payload carries something that changes with each event (checked in
 * every variant of @octokit/webhooks-types): two deliveries of them with the same bytes are one
 * event sent twice. All are checked events (SHAPES), so a payload sent under one of these names
 * is one of their payloads.
 * - push: `before`, `after` and `repository.pushed_at`;
 * - pull_request, issues: the `updated_at` of the pull request or issue;
 * - pull_request_review_comment, issue_comment: the comment's id and `updated_at`;
 * - workflow_run: the run's id, `run_attempt` and `updated_at`; workflow_job: the job's id (one
 *   per attempt) and its action (each once);
 * - check_suite: the suite's id and `updated_at`;
 * - status, deployment, deployment_status: an id of their own (each sent once).
 * Not listed, so told apart by delivery id only: events with no per-event id or time at all
 * (workflow_dispatch, repository_dispatch, star, watch, ...) and those with a variant that can
 * come again unchanged: check_run (`rerequested`, `requested_action`: the same check run, no
 * update time), release (no update time: an `edited` or `unpublished` can repeat),
 * pull_request_review (a review has no update time: `edited` back and forth),
 * pull_request_review_thread (`resolved`/`unresolved` back and forth: a thread has no time).
 */
const UNIQUE_BODY_EVENTS: ReadonlySet<string> = new Set([
  'push',
  'pull_request',
  'pull_request_review_comment',
  'issues',
  'issue_comment',
  'workflow_run',
  'workflow_job',
  'check_suite',
  'status',
  'deployment',
  'deployment_status',
]);

/**
 * Whether a verified payload (one that passed githubEventMismatch for `event`) is never sent for
 * two events with the same bytes: only then does a body seen before under another delivery id
 * mean a captured delivery sent again. Told by the payload, not only by the event header, which
 * is not signed: a payload of one of these events (it passes that event's check) is unique under
 * whatever name the header gives it. githubEventMismatch already refuses it under any other name
 * (`Push`, `repository_dispatch`, an event not listed: a payload of a checked event); this is
 * for a payload a check would let through all the same. No example payload of another event
 * passes these events' checks (the shapes test).
 */
export const githubBodyIsUnique = (event: string, payload: unknown): boolean =>
  UNIQUE_BODY_EVENTS.has(event) || [...UNIQUE_BODY_EVENTS].some((unique) => githubEventMismatch(unique, payload) === undefined);
