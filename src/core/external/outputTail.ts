/**
 * The last `limit` bytes of a stream of output chunks, as a terminal keeps them.
 *
 * Invariants:
 * - memory is bounded by the limit (plus the one chunk being cut), and each chunk costs time in
 *   proportion to its own size: chunks are kept as they came, counted as they come, and dropped
 *   from the front; nothing is re-decoded or re-counted per chunk;
 * - the text is the kept bytes decoded once when asked (and again only after more output): it
 *   starts at a character boundary when the front was cut (ACP's `outputByteLimit`: truncate from
 *   the beginning, at a character boundary, even if that keeps slightly less), and a character
 *   still arriving (its first bytes in, its last not yet) is left for the next read rather than
 *   shown broken.
 */
export class OutputTail {
  private chunks: Buffer[] = [];
  /** Index of the first kept chunk: the queue is compacted only when most of it is dropped. */
  private head = 0;
  private bytes = 0;
  private decoded: string | undefined;
  /** Whether any output was dropped from the front. */
  truncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.decoded = undefined;
    if (chunk.length >= this.limit) {
      if (chunk.length > this.limit || this.bytes > 0) this.truncated = true;
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - this.limit))];
      this.head = 0;
      this.bytes = this.limit;
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes - this.chunks[this.head].length >= this.limit) {
      this.bytes -= this.chunks[this.head].length;
      this.head++;
      this.truncated = true;
    }
    if (this.bytes > this.limit) {
      this.chunks[this.head] = this.chunks[this.head].subarray(this.bytes - this.limit);
      this.bytes = this.limit;
      this.truncated = true;
    }
    if (this.head > 64 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  /** The kept output as text. */
  text(): string {
    if (this.decoded === undefined) {
      const kept = Buffer.concat(this.chunks.slice(this.head), this.bytes);
      const from = this.truncated ? continuationBytesAt(kept, 0) : 0;
      this.decoded = kept.subarray(from, completeEnd(kept)).toString('utf8');
    }
    return this.decoded;
  }
}

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;

/** How many continuation bytes (at most 3, the most a character has) start at `at`. */
function continuationBytesAt(bytes: Buffer, at: number): number {
  let n = 0;
  while (n < 3 && at + n < bytes.length && isContinuation(bytes[at + n])) n++;
  return n;
}

/** Where the bytes end once a last character still incomplete is left out. */
function completeEnd(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const byte = bytes[i];
    if (isContinuation(byte)) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return bytes.length - i < length ? i : bytes.length;
  }
  return bytes.length;
}
