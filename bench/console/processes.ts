import { runNode, stop, waitUntilReady, type Proc } from '../../tests/helpers/processes.ts';

/**
 * The child processes of one benchmark run (service, console server, baseline server), each
 * started with `node --import tsx`, and the other things to undo (databases, directories, servers
 * in this process). Everything is undone in reverse order at the end, on failure, and on Ctrl-C.
 */
export class Processes {
  private readonly running = new Set<Proc>();
  private readonly undo: { name: string; fn: () => Promise<void> | void }[] = [];

  constructor() {
    // Whatever happens, no child outlives the benchmark.
    process.on('exit', () => {
      for (const p of this.running) p.child.kill('SIGKILL');
    });
  }

  /** Starts `script` and waits until `readyUrl` answers 200; the output is shown if it never does. */
  async start(name: string, script: string, env: Record<string, string>, readyUrl: string): Promise<Proc> {
    const proc = runNode(script, [], env);
    this.running.add(proc);
    void proc.exited.then(() => this.running.delete(proc));
    try {
      await waitUntilReady(proc, readyUrl, 180_000);
    } catch (err) {
      throw new Error(`${name} did not start: ${(err as Error).message}`);
    }
    return proc;
  }

  /** Stops one child (SIGTERM, then SIGKILL after 20 s) and waits for its end. */
  async stop(proc: Proc): Promise<void> {
    await stop(proc);
    this.running.delete(proc);
  }

  /** Something to undo at the end (a database to drop, a directory to remove, a server to close). */
  later(name: string, fn: () => Promise<void> | void): void {
    this.undo.push({ name, fn });
  }

  private stopping: Promise<void> | null = null;

  /** Undoes everything once; a second call (Ctrl-C during the end of a failure) waits for the same. */
  stopAll(): Promise<void> {
    this.stopping ??= this.undoAll();
    return this.stopping;
  }

  private async undoAll(): Promise<void> {
    for (const p of [...this.running]) await this.stop(p);
    for (const { name, fn } of this.undo.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error(`cleanup of ${name} failed: ${(err as Error).message}`);
      }
    }
  }
}
