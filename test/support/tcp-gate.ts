import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP front to a real server that a test can make misbehave, the way a customer's SFTP
 * server or the network between fails: `forward` (pass bytes both ways), `silent` (accept and
 * never answer: a hung server), `reset` (accept and drop the connection at once: a server that
 * refuses). Not a test double: every byte that passes comes from the real server behind it.
 * `accepted` counts connections the gate received, the server-side signal that a client tried.
 */
export type GateMode = 'forward' | 'silent' | 'reset';

export interface TcpGate {
  port: number;
  accepted: number;
  setMode(mode: GateMode): void;
  close(): Promise<void>;
}

export async function openTcpGate(target: { host: string; port: number }, mode: GateMode = 'forward'): Promise<TcpGate> {
  const sockets = new Set<Socket>();
  const gate = { port: 0, accepted: 0, mode };
  const server: Server = createServer((client) => {
    gate.accepted++;
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (gate.mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    if (gate.mode === 'silent') return;
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => { sockets.delete(upstream); client.destroy(); });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gate.port = (server.address() as { port: number }).port;
  return {
    get port() { return gate.port; },
    get accepted() { return gate.accepted; },
    setMode(next) {
      gate.mode = next;
      // A hung server that comes back does not revive the connections it swallowed.
      if (next !== 'silent') for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
