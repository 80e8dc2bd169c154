// A loopback TCP proxy the tests can cut and restore, to play a PostgreSQL or Redis outage.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  cut: () => Promise<void>;
  /** Keeps connections open but stops forwarding: a server that no longer answers. */
  stall: () => void;
  restore: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startTcpProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let stalled = false;
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost);
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
          if (!stalled) upstream.write(chunk);
        });
        upstream.on('data', (chunk: Buffer) => {
          if (!stalled) client.write(chunk);
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
  return { port, cut, stall, restore: listen, close: cut };
}
