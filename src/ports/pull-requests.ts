/** The pull request of a job's branch, as the code host shows it. */
export interface PullRequest {
  readonly number: number;
  readonly url: string;
  /** The commit at the head of the branch: checks are read for it and the merge is made of it. */
  readonly headSha: string;
  readonly open: boolean;
  readonly merged: boolean;
}

/** The checks of a commit taken together: check runs and commit statuses. */
export type ChecksOutcome =
  | { readonly state: 'passed' }
  | { readonly state: 'pending'; readonly pending: readonly string[] }
  | { readonly state: 'failed'; readonly failed: readonly string[] };

export type MergeOutcome = { readonly merged: true } | { readonly merged: false; readonly reason: string };

/** What auto-merge needs of the code host's pull requests. Every method throws when the host cannot be asked. */
export interface PullRequests {
  /** The newest pull request whose head is `branch` (open or not), or null when there is none. */
  forBranch(branch: string): Promise<PullRequest | null>;
  /** Every file the pull request changes (old and new path of a rename), all pages read. */
  changedFiles(number: number): Promise<string[]>;
  /**
   * The checks of `sha`: failed when any finished unsuccessfully (names `name (conclusion)`),
   * else pending while any is unfinished, else passed (also when there are none).
   */
  checks(sha: string): Promise<ChecksOutcome>;
  /** Merges the pull request if its head is still `sha`; a refusal (not mergeable, head moved) is `merged: false` with the host's reason. */
  merge(number: number, sha: string): Promise<MergeOutcome>;
}
