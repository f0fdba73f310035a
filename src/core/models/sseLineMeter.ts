/**
 * The length of every line of an event stream, measured across reads, for the cap on one line
 * or event. The SSE parser measures only what it still buffers after a feed, so a line whose
 * end arrives in the same read as its last part would pass unmeasured, up to one read past the
 * cap. The meter sees each decoded read before the parser does: a line longer than the cap is
 * caught wherever the reads cut it. (An event of many short data lines is measured by its
 * data when the parser hands it over.)
 *
 * Line ends are those of the SSE format: `\n`, `\r`, or `\r\n` (which counts as `\r` ending a
 * line and `\n` ending an empty one; neither is ever longer than the line it ends).
 */
export class SseLineMeter {
  /** Characters of the line under way, from earlier reads. */
  private current = 0;

  constructor(private readonly maxChars: number) {}

  /** Measures the next read; false once a line (with what earlier reads gave of it) is longer than the cap. */
  fits(text: string): boolean {
    let start = 0;
    let lf = text.indexOf('\n');
    let cr = text.indexOf('\r');
    while (lf !== -1 || cr !== -1) {
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (this.current + (end - start) > this.maxChars) return false;
      this.current = 0;
      start = end + 1;
      // Each search starts past the last line end found, so a read is scanned once.
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
    }
    this.current += text.length - start;
    return this.current <= this.maxChars;
  }
}
