export {};
//# sourceMappingURL=start-marks.js.map