// A loopback TCP proxy the tests can cut and restore, to play a PostgreSQL or Redis outage.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  cut: () => Promise<void>;
  /** Keeps connections open but stops forwarding: a server that no longer answers. */
  stall: () => void;
  /**
   * Stops forwarding on the connections open now only; later ones pass: connections gone
   * half-open (a dropped NAT or conntrack entry) while the server itself is fine.
   */
  stallOpen: () => void;
  restore: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startTcpProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  /** Per connection: whether `stallOpen` stopped it. */
  const pairs = new Set<{ stalled: boolean }>();
  let stalled = false;
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost);
        const pair = { stalled: false };
        pairs.add(pair);
        client.on('close', () => pairs.delete(pair));
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        // A side that goes away takes the other with it, as a real server's exit would
        // (PostgreSQL ending a backend, Redis restarting): the client sees the close.
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.on('data', (chunk: Buffer) => {
          if (!stalled && !pair.stalled) upstream.write(chunk);
        });
        upstream.on('data', (chunk: Buffer) => {
          if (!stalled && !pair.stalled) client.write(chunk);
        });
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = async () => {
    stalled = false;
    await new Promise<void>((resolve) => {
      // Already cut: nothing listens, nothing to wait for.
      if (!server) return resolve();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
    server = undefined;
  };
  await listen();
  const stall = () => {
    stalled = true;
  };
  const stallOpen = () => {
    for (const pair of pairs) pair.stalled = true;
  };
  return { port, cut, stall, stallOpen, restore: listen, close: cut };
}
