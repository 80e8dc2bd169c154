// The newest events this replica read from the stream, in order, with no hole: everything
// after `floor` up to the newest kept entry. A resume from an id inside that range is
// answered from memory; anything else goes to Redis. Bounded to `max` entries and `maxBytes`
// (as measured by `sizeOf`), so large events cannot make it big.
import { compareEventIds } from './event-id.js';

export class RecentEvents<T> {
  private ids: string[] = [];
  private values: T[] = [];
  private start = 0;
  private bytes = 0;
  /** Every entry after this id (up to the newest) is kept; undefined: nothing known yet. */
  private floor: string | undefined;

  constructor(
    private readonly max: number,
    private readonly maxBytes = Infinity,
    private readonly sizeOf: (value: T) => number = () => 0,
  ) {}

  /** Forget everything; entries after `floor` will be pushed from now on. */
  reset(floor: string): void {
    this.ids = [];
    this.values = [];
    this.start = 0;
    this.bytes = 0;
    this.floor = floor;
  }

  /** The next entry of the stream (ids strictly increasing). */
  push(id: string, value: T): void {
    if (this.floor === undefined) return;
    this.ids.push(id);
    this.values.push(value);
    this.bytes += this.sizeOf(value);
    while (this.size > this.max || (this.bytes > this.maxBytes && this.size > 0)) {
      this.floor = this.ids[this.start];
      this.bytes -= this.sizeOf(this.values[this.start]!);
      this.values[this.start] = undefined as T; // free it before the next compaction
      this.start++;
    }
    // Compact now and then rather than shifting on every push.
    if (this.start >= Math.max(64, this.size)) {
      this.ids = this.ids.slice(this.start);
      this.values = this.values.slice(this.start);
      this.start = 0;
    }
  }

  /**
   * Up to `count` entries after `after`, oldest first, when `after` lies within what is kept
   * (from the floor to the newest); undefined otherwise (ask Redis).
   */
  after(after: string, count: number): Array<{ id: string; value: T }> | undefined {
    if (this.floor === undefined || compareEventIds(after, this.floor) < 0) return undefined;
    const newest = this.ids.length > this.start ? this.ids[this.ids.length - 1]! : this.floor;
    if (compareEventIds(after, newest) > 0) return undefined;
    let lo = this.start;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareEventIds(this.ids[mid]!, after) <= 0) lo = mid + 1;
      else hi = mid;
    }
    const out: Array<{ id: string; value: T }> = [];
    for (let i = lo; i < this.ids.length && out.length < count; i++)
      out.push({ id: this.ids[i]!, value: this.values[i]! });
    return out;
  }

  get size(): number {
    return this.ids.length - this.start;
  }
}
