/** The status a person sees: a pending approval past its time is expired, even before the sweep records it. */
export const effectiveStatus = (approval, now) => approval.status === 'pending' && approval.expiresAt.getTime() <= now.getTime() ? 'expired' : approval.status;
//# sourceMappingURL=approval.js.map