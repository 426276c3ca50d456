/** One dependency the service needs to serve requests (database, queue). */
export interface ReadinessCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects (with the cause) when it does not. */
  check(): Promise<void>;
}
