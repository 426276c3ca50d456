import type { Approval, ApprovalStatus } from '../../src/domain/approvals/approval.js';
import type { ApprovalStore } from '../../src/ports/approval-store.js';

export class InMemoryApprovalStore implements ApprovalStore {
  readonly approvals = new Map<string, Approval>();

  async request(approval: Approval): Promise<Approval> {
    const existing = [...this.approvals.values()].find((one) => one.runId === approval.runId && one.actionIndex === approval.actionIndex);
    if (existing) return { ...existing };
    this.approvals.set(approval.id, { ...approval });
    return { ...approval };
  }

  async decide(id: string, decision: 'approved' | 'denied', by: string, now: Date): Promise<Approval | null> {
    const found = this.approvals.get(id);
    if (found?.status !== 'pending' || found.expiresAt.getTime() <= now.getTime()) return null;
    const decided = { ...found, status: decision, decidedBy: by.slice(0, 200), decidedAt: now };
    this.approvals.set(id, decided);
    return { ...decided };
  }

  async expireDue(now: Date, limit: number): Promise<Approval[]> {
    const due = [...this.approvals.values()].filter((one) => one.status === 'pending' && one.expiresAt.getTime() <= now.getTime()).slice(0, limit);
    return due.map((one) => {
      const expired = { ...one, status: 'expired' as const };
      this.approvals.set(one.id, expired);
      return { ...expired };
    });
  }

  async find(id: string): Promise<Approval | null> {
    const found = this.approvals.get(id);
    return found ? { ...found } : null;
  }

  async list(filter: { readonly status?: ApprovalStatus; readonly limit: number }): Promise<Approval[]> {
    return [...this.approvals.values()]
      .filter((one) => filter.status === undefined || one.status === filter.status)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .slice(0, filter.limit)
      .map((one) => ({ ...one }));
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const old = [...this.approvals.values()]
      .filter((one) => one.status !== 'pending' && one.createdAt < cutoff)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit);
    for (const one of old) this.approvals.delete(one.id);
    return old.length;
  }
}
