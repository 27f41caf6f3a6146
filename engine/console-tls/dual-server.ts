import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';

/** The first byte of a TLS handshake record. */
const TLS_HANDSHAKE = 0x16;
/** A connection that sends nothing this long after connecting is closed. */
export const FIRST_BYTE_TIMEOUT_MS = 10_000;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * An HTTP server whose port also speaks TLS: each connection's first byte says which (a TLS
 * handshake starts with 0x16, an HTTP request with a method's letter). The HTTPS side serves the
 * same handler with the certificate `tls()` gives, and `setTls` swaps it for new connections without
 * a restart. Closing the returned server closes both sides' connections.
 */
export function createDualProtocolServer(
  handler: Handler,
  tls: { cert: string; key: string },
): { server: Server; setTls(tls: { cert: string; key: string }): void } {
  const plain = createHttpServer(handler);
  const secure = createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, handler);
  const parseHttp = plain.listeners('connection') as ((socket: Socket) => void)[];
  plain.removeAllListeners('connection');
  // What the HTTP side reports of its parser's refusals (Fastify's clientErrorHandler) holds for both.
  secure.on('clientError', (error, socket) => {
    if (plain.listenerCount('clientError') > 0) plain.emit('clientError', error, socket);
    else socket.destroy();
  });
  secure.on('tlsClientError', (_error, socket) => socket.destroy());

  plain.on('connection', (socket: Socket) => {
    const refuse = (): void => void socket.destroy();
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, refuse);
    socket.on('error', refuse);
    socket.once('data', (chunk: Buffer) => {
      socket.setTimeout(0);
      socket.removeListener('error', refuse);
      socket.pause();
      socket.unshift(chunk);
      if (chunk[0] === TLS_HANDSHAKE) {
        // Timeouts Fastify set on the HTTP side hold for the HTTPS side too.
        secure.headersTimeout = plain.headersTimeout;
        secure.requestTimeout = plain.requestTimeout;
        secure.keepAliveTimeout = plain.keepAliveTimeout;
        secure.maxHeadersCount = plain.maxHeadersCount;
        secure.timeout = plain.timeout;
        // The TLS socket reads what was put back itself; resuming here would hand it to nobody.
        secure.emit('connection', socket);
        return;
      }
      for (const listener of parseHttp) listener.call(plain, socket);
      socket.resume();
    });
  });

  const closeIdle = plain.closeIdleConnections.bind(plain);
  const closeAll = plain.closeAllConnections.bind(plain);
  plain.closeIdleConnections = () => {
    closeIdle();
    secure.closeIdleConnections();
  };
  plain.closeAllConnections = () => {
    closeAll();
    secure.closeAllConnections();
  };
  const close = plain.close.bind(plain);
  plain.close = (callback) => {
    // The HTTPS side never listens; closing it marks its connections to end after their answer.
    secure.close();
    return close(callback);
  };

  return {
    server: plain,
    setTls: (next) => secure.setSecureContext({ cert: next.cert, key: next.key, minVersion: 'TLSv1.2' }),
  };
}
