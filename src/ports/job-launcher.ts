export interface JobLaunch {
  readonly job: string;
  readonly llmProvider?: string;
  readonly llmModel?: string;
  readonly source: { readonly kind: 'trigger'; readonly name: string };
}

/** Hands an agent job to the job capability. */
export interface JobLauncher {
  /**
   * Creates the job and returns its id.
   * @throws DomainError `not_configured` when this deployment cannot run jobs.
   */
  launch(request: JobLaunch): Promise<string>;
}
