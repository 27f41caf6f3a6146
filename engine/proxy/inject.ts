const CLOSE_BODY = '</body>';

/**
 * Adds the probe in page mode to an HTML answer as it streams by, before its first `</body>`
 * (matched in any case), as the nginx bundle's `sub_filter` does: an open page then renews its
 * token before it expires. A tag split across two chunks is found too (the last bytes of a chunk
 * are held back until the next).
 */
export class ProbeInjector {
  readonly #tag: Buffer;
  #carry: Buffer = Buffer.alloc(0);
  #done = false;

  constructor(scriptUrl: string) {
    this.#tag = Buffer.from(`<script src="${scriptUrl}" async></script>`);
  }

  /** The bytes to send now for this chunk of the origin's body. */
  push(chunk: Buffer): Buffer {
    if (this.#done) return chunk;
    const data = this.#carry.length > 0 ? Buffer.concat([this.#carry, chunk]) : chunk;
    const at = data.toString('latin1').toLowerCase().indexOf(CLOSE_BODY);
    if (at !== -1) {
      this.#done = true;
      this.#carry = Buffer.alloc(0);
      return Buffer.concat([data.subarray(0, at), this.#tag, data.subarray(at)]);
    }
    const keep = Math.min(CLOSE_BODY.length - 1, data.length);
    this.#carry = Buffer.from(data.subarray(data.length - keep));
    return data.subarray(0, data.length - keep);
  }

  /** What is still held back when the body ends (a page without `</body>` is sent unchanged). */
  end(): Buffer {
    const rest = this.#carry;
    this.#carry = Buffer.alloc(0);
    return rest;
  }
}
