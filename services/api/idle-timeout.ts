import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The idle timeout (`HTTP_IDLE_TIMEOUT_MS`, fastify's `connectionTimeout`) closes a connection on
 * which the client is silent (docs/api-decisions.md "Server timeouts and errors before routing").
 * Node counts it on the socket whatever the reason for the silence, so a route that took longer
 * than the timeout to answer a request it had received whole had its connection destroyed under
 * it: the client saw "other side closed" and no answer (CI under load: a request waiting on a
 * busy store for over 60 s). Here the timeout closes the connection unless a request on it has
 * arrived whole and is still being answered; a client silent before or within its request is
 * still cut off as before.
 */
export function idleTimeoutSparesAnswering(server: Server): void {
  const answering = new WeakMap<Socket, IncomingMessage>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    answering.set(socket, request);
    response.once('close', () => {
      if (answering.get(socket) === request) answering.delete(socket);
    });
  });
  // With a listener here Node no longer destroys a timed-out socket itself.
  server.on('timeout', (socket: Socket) => {
    if (answering.get(socket)?.complete) return;
    socket.destroy();
  });
}
