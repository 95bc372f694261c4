/**
 * The engine's one memory budget for the scan: decoded parts (and kept raw tails) beside what questions
 * derived and keep for later ones (a period's visitor order and session facts, cohort members). Two
 * least-recently-used lists weighed in bytes, their sum within the capacity. A part that does not fit pushes
 * out older parts first: when a period's parts do not fit, they push out each other (each question reads
 * them again), not the derived data that spares each question recomputing it. Derived data holds at most
 * half the budget. Memory held outside both lists that the budget must still count (the visitor and session
 * numbering, which grows with the visitors read and is let go only whole) is weighed in as well (`alsoHeld`):
 * parts and derived data make room for it.
 */

/** Entries weighed in bytes, in order of use (a Map's order is insertion order; a read re-inserts). */
class Weighed {
  map = new Map<string, { value: unknown; bytes: number }>();
  used = 0;
  get(key: string): unknown {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }
  set(key: string, value: unknown, bytes: number) {
    this.delete(key);
    this.map.set(key, { value, bytes });
    this.used += bytes;
  }
  delete(key: string) {
    const e = this.map.get(key);
    if (!e) return;
    this.map.delete(key);
    this.used -= e.bytes;
  }
  dropOldest(): boolean {
    for (const key of this.map.keys()) {
      this.delete(key);
      return true;
    }
    return false;
  }
}

export class Budget {
  private parts = new Weighed();
  private derived = new Weighed();
  /**
   * `alsoHeld`: bytes held outside the lists that count against the capacity, read each time the budget
   * weighs what it holds.
   */
  constructor(readonly capacity: number, private alsoHeld: () => number = () => 0) {}

  /** Bytes held: the lists' and what is held outside them. */
  get used(): number {
    return this.listed + this.alsoHeld();
  }

  /** Bytes of the decoded parts and derived data held. */
  get listed(): number {
    return this.parts.used + this.derived.used;
  }

  /** Bytes of derived data held. */
  get keptBytes(): number {
    return this.derived.used;
  }

  part(key: string): unknown {
    return this.parts.get(key);
  }

  kept(key: string): unknown {
    return this.derived.get(key);
  }

  /**
   * A decoded part (or a kept tail): older parts go first, then older derived data. Too heavy (beside what
   * is held outside the lists): not kept.
   */
  setPart(key: string, value: unknown, bytes: number): void {
    if (bytes + this.alsoHeld() > this.capacity) return this.parts.delete(key);
    this.parts.set(key, value, bytes);
    this.trim(this.parts, this.derived);
  }

  /** Derived data: older derived data goes first (past half the budget too), then older parts. */
  setKept(key: string, value: unknown, bytes: number): void {
    if (bytes > this.capacity / 2) return this.derived.delete(key);
    this.derived.set(key, value, bytes);
    while (this.derived.used > this.capacity / 2 && this.derived.dropOldest());
    this.trim(this.derived, this.parts);
  }

  /** Makes room after what is held outside the lists grew (parts go first, then derived data). */
  fit(): void {
    this.trim(this.parts, this.derived);
  }

  private trim(first: Weighed, then: Weighed) {
    while (this.used > this.capacity && first.dropOldest());
    while (this.used > this.capacity && then.dropOldest());
  }
}
