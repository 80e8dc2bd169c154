// Which client IPs were reported to chat lately. Chat decides entrance messages (one per
// IP per 10 minutes, in Redis); this memo only spares chat a request per connection when
// one address opens many sockets (a reconnect storm, a NAT). Bounded: the oldest entries
// go first when it is full.
export class RecentIps {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly cooldownMs: number,
    private readonly maxEntries: number,
  ) {}

  /** True (and remembered) when `ip` was not reported within the cooldown. */
  claim(ip: string, now: number): boolean {
    const expiry = this.until.get(ip);
    if (expiry !== undefined && expiry > now) return false;
    this.until.delete(ip);
    if (this.until.size >= this.maxEntries) {
      const oldest = this.until.keys().next().value;
      if (oldest !== undefined) this.until.delete(oldest);
    }
    this.until.set(ip, now + this.cooldownMs);
    return true;
  }

  /** Forget a claim whose report failed, so the next connection tries again. */
  release(ip: string): void {
    this.until.delete(ip);
  }

  get size(): number {
    return this.until.size;
  }
}
