export class SystemClock {
    now() {
        return new Date();
    }
}
//# sourceMappingURL=system-clock.js.map