import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

export interface BodyStart {
  /** The bytes read: the whole body when `ended`, else at least `limit + 1` bytes of it. */
  head: Buffer;
  ended: boolean;
}

/** The client went away (or broke the framing) before its body was read. */
export class ClientAbort extends Error {
  constructor() {
    super('the client closed the connection before its request body arrived');
  }
}

/** Whether a request announces a body (Content-Length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads a request body up to one byte past `limit` and stops there, paused: the rest stays in
 * the stream for the origin (never buffered). A body that ends first is read whole.
 */
export function readBodyStart(req: IncomingMessage, limit: number): Promise<BodyStart> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onFail);
      req.removeListener('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        req.pause();
        cleanup();
        resolve({ head: Buffer.concat(chunks, size), ended: false });
      }
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ head: Buffer.concat(chunks, size), ended: true });
    };
    const onFail = (): void => {
      cleanup();
      reject(new ClientAbort());
    };
    const onClose = (): void => {
      if (req.complete) return;
      cleanup();
      reject(new ClientAbort());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFail);
    req.on('close', onClose);
  });
}

/** The body for the origin: the bytes already read, then the rest of the client's stream. */
export function forwardBody(req: IncomingMessage, start: BodyStart): Buffer | Readable | undefined {
  if (start.ended) return start.head.length > 0 ? start.head : undefined;
  async function* rest(): AsyncGenerator<Buffer> {
    yield start.head;
    for await (const chunk of req) yield chunk as Buffer;
  }
  return Readable.from(rest(), { objectMode: false });
}
