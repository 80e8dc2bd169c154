// Open WebSockets per client IP on this replica. One address may not hold more than `max`
// at once (0: no cap), so a single client cannot exhaust the replica's sockets and memory;
// a NAT or a browser with many tabs stays well under the default. Counts are per replica:
// with N replicas behind a balancer one address may hold up to N × max.
export class ConnectionCap {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes a slot for `ip`; false when it already holds `max`. */
  tryAcquire(ip: string): boolean {
    const held = this.open.get(ip) ?? 0;
    if (this.max > 0 && held >= this.max) return false;
    this.open.set(ip, held + 1);
    return true;
  }

  release(ip: string): void {
    const held = this.open.get(ip) ?? 0;
    if (held <= 1) this.open.delete(ip);
    else this.open.set(ip, held - 1);
  }

  held(ip: string): number {
    return this.open.get(ip) ?? 0;
  }

  /** Addresses holding at least one slot (the map never keeps empty entries). */
  get addresses(): number {
    return this.open.size;
  }
}
