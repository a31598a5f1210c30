/**
 * Runs tasks one after another. Transactions are broadcast through it (the facilitator's settlements, local
 * mints), so each one sees the previous ones in the node's pending count and a nonce handed back after a failed
 * broadcast (nonce manager reset) never races another broadcast. Queue only the broadcast, not the receipt wait.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every task queued before it has settled; resolves or rejects with its outcome. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
