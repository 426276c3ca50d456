import { DomainError } from '../domain/errors/DomainError.js';
import type { RequestSnapshot } from '../domain/templates/RequestSnapshot.js';
import type { DeliveryLog } from '../ports/DeliveryLog.js';
import type { Logger } from '../ports/Logger.js';
import type { WebhookSignatureVerifier } from '../ports/WebhookSignatureVerifier.js';
import type { FireTriggers } from './FireTriggers.js';

export interface CodehostDelivery {
  readonly rawBody: Buffer;
  readonly signature: string | undefined;
  readonly event: string | undefined;
  readonly deliveryId: string | undefined;
  readonly watchPath: string;
  readonly request: RequestSnapshot;
}

export interface CodehostOutcome {
  readonly ok: true;
  /** Names of the triggers that fired (none for ping and redeliveries). */
  readonly triggers: string[];
  readonly duplicate?: true;
}

/**
 * SPEC 4.5, 5.6: a code-host delivery is verified by its signature before anything else;
 * `ping` is acknowledged; a delivery id seen before is acknowledged without running again;
 * any other verified event fires the triggers watching the endpoint.
 */
export class ReceiveCodehostEvent {
  constructor(
    private readonly verifier: WebhookSignatureVerifier,
    private readonly deliveries: DeliveryLog,
    private readonly fireTriggers: FireTriggers,
    private readonly logger: Logger,
  ) {}

  async execute(delivery: CodehostDelivery): Promise<CodehostOutcome> {
    if (!this.verifier.verify(delivery.rawBody, delivery.signature)) {
      this.logger.warn({ event: delivery.event, deliveryId: delivery.deliveryId }, 'code-host delivery refused: bad or missing signature');
      throw new DomainError('unauthorized', 'Unauthorized');
    }
    const event = delivery.event ?? 'unknown';
    if (event === 'ping') return { ok: true, triggers: [] };
    const id = delivery.deliveryId;
    if (id !== undefined && !(await this.deliveries.recordFirst(id, event))) {
      this.logger.info({ event, deliveryId: id }, 'code-host redelivery acknowledged, not run again');
      return { ok: true, triggers: [], duplicate: true };
    }
    try {
      return { ok: true, triggers: await this.fireTriggers.execute({ watchPath: delivery.watchPath, request: delivery.request }) };
    } catch (error) {
      if (id !== undefined) await this.deliveries.forget(id).catch(() => undefined);
      throw error;
    }
  }
}
