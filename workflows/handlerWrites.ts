/**
 * The queue through which Update handlers get their changes written to the read model (issue 6). Every write is made
 * by the workflow's main coroutine, in version order: a handler changes the state, queues its write here, and waits
 * until {@link HandlerWrites.done} holds for its ticket; the main coroutine drains the queue between its own steps.
 * Used by the expert part of the order workflow (one progress entry per write) and the subscription workflow (one
 * write of the whole state covers everything queued). Workflow-safe: no imports.
 */

/** Queued writes of Update handlers, with the tickets the handlers wait on. `T`: what one write needs. */
export class HandlerWrites<T> {
  private readonly items: T[] = [];
  private queued = 0;
  private recorded = 0;

  /** Queues one write; returns the ticket to wait on with {@link done}. */
  push(item: T): number {
    this.items.push(item);
    this.queued += 1;
    return this.queued;
  }

  /** True while some queued write is not recorded yet. */
  get pending(): boolean {
    return this.recorded < this.queued;
  }

  /** True once the write of `ticket` (and every earlier one) is recorded. */
  done(ticket: number): boolean {
    return this.recorded >= ticket;
  }

  /** Makes the queued writes one by one, in order, including those queued while it runs. */
  async drainEach(write: (item: T) => Promise<void>): Promise<void> {
    while (this.items.length > 0) {
      const next = this.items.shift() as T;
      await write(next);
      this.recorded += 1;
    }
  }

  /**
   * Makes one write (`write`, which records the whole current state) for everything queued, again while more was
   * queued during it.
   */
  async drainAll(write: () => Promise<void>): Promise<void> {
    while (this.pending) {
      const target = this.queued;
      this.items.length = 0;
      await write();
      this.recorded = target;
    }
  }

  /** Marks everything queued as recorded: a final write of the whole state made by the caller covered it. */
  settleAll(): void {
    this.items.length = 0;
    this.recorded = this.queued;
  }
}
