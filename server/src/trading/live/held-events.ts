/**
 * Bus events that arrive while the live book loads from the database (at start, on a resync)
 * wait for the load and are applied after it, in arrival order: one committed meanwhile is
 * neither missed nor overwritten by the older state the load brings.
 */
export class HeldEvents {
  private held: Array<() => void> | null = null;

  /** Whether a load runs (events wait). */
  get holding(): boolean {
    return this.held !== null;
  }

  /** A load begins: events wait from now on. */
  hold(): void {
    this.held = [];
  }

  /** Applies an event now, or after the running load. */
  apply(event: () => void): void {
    if (this.held) this.held.push(event);
    else event();
  }

  /** The load is over: the events that waited are applied, in arrival order. */
  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const event of held) event();
  }
}
