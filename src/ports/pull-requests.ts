/** The pull request of a job's branch, as the code host shows it. */
export interface PullRequest {
  readonly number: number;
  readonly url: string;
  /** The commit at the head of the branch: checks are read for it and the merge is made of it. */
  readonly headSha: string;
  readonly open: boolean;
  readonly merged: boolean;
  /** The branch the pull request would merge into. */
  readonly base: string;
  /** The repository's default branch: the only base auto-merge merges into (jobs branch off it). */
  readonly defaultBranch: string;
}

/**
 * The files a commit changes against a base branch (from their merge base, as a pull request
 * shows them), as far as the code host lists them.
 */
export interface ChangedFiles {
  /** Every path listed: the old and the new path of a rename. */
  readonly paths: readonly string[];
  /** How many changed files were listed. */
  readonly listed: number;
  /**
   * Every changed file was listed. A host lists only so many (GitHub's compare: 300) without
   * saying how many there are, so a list that reaches the limit is taken for cut off.
   */
  readonly complete: boolean;
}

/**
 * The checks of a commit taken together: check runs and commit statuses. Pending with no names:
 * the commit has no check and no status at all (yet), which is never passed.
 */
export type ChecksOutcome =
  | { readonly state: 'passed' }
  | { readonly state: 'pending'; readonly pending: readonly string[] }
  | { readonly state: 'failed'; readonly failed: readonly string[] };

/** A merge made (with the merge commit the host answered with, when it named one), or refused. */
export type MergeOutcome = { readonly merged: true; readonly sha?: string } | { readonly merged: false; readonly reason: string };

/** What auto-merge needs of the code host's pull requests. Every method throws when the host cannot be asked. */
export interface PullRequests {
  /** The newest pull request whose head is `branch` (open or not), with its base and the repository's default branch, or null when there is none. */
  forBranch(branch: string): Promise<PullRequest | null>;
  /**
   * The files commit `sha` changes against branch `base` (old and new path of a rename), and
   * whether that is all of them: the files of exactly that commit, whatever the head of its
   * pull request is by now. Throws for a commit the host does not know.
   */
  changedFiles(base: string, sha: string): Promise<ChangedFiles>;
  /**
   * The checks of `sha`: failed when any finished unsuccessfully (names `name (conclusion)`),
   * else pending while any is unfinished, pending with no names when there is none at all,
   * else (at least one, all successful) passed.
   */
  checks(sha: string): Promise<ChecksOutcome>;
  /** Merges the pull request if its head is still `sha`; a refusal (not mergeable, head moved) is `merged: false` with the host's reason. */
  merge(number: number, sha: string): Promise<MergeOutcome>;
}
