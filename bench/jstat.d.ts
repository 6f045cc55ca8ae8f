// The part of jstat 1.9 that bench/checks/error-rate.ts uses (the package ships no types).
declare module 'jstat' {
  interface JStat {
    beta: {
      /** The p-quantile of the Beta(alpha, beta) distribution. */
      inv(p: number, alpha: number, beta: number): number;
    };
  }
  const jstat: { jStat: JStat };
  export default jstat;
}
