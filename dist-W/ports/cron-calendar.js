export {};
//# sourceMappingURL=cron-calendar.js.map