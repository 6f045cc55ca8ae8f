/** A clock tests can move: starts at the real time and only moves when told. */
export class TestClock {
  private t: number;
  constructor(start: Date = new Date()) {
    this.t = start.getTime();
  }
  now = (): Date => new Date(this.t);
  advance(ms: number): void {
    this.t += ms;
  }
  set(d: Date): void {
    this.t = d.getTime();
  }
}
