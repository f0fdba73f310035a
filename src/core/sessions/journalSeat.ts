/**
 * What a session log and its store know of the journal of new one-shot sessions
 * (sessionJournal.ts, a part loaded at the first one-shot session or when a crashed window left
 * a journal): where journals live, what the journal asks of a log, and the log's place in it.
 */
/** The folder of the windows' journals, inside the session folder. */
export const JOURNAL_FOLDER = 'journal';
export const JOURNAL_SUFFIX = '.journal';

/** A batch of a log's lines handed to the journal: where its bytes go in the log's file. */
export interface JournalBatch {
  readonly offset: number;
}

/**
 * What the journal asks of a log it holds (its writer). Methods, not callbacks handed over with
 * each batch: a fan-out hands the journal a thousand batches at once, and three closures each
 * were most of what a batch cost to hand over and to keep until it landed.
 */
export interface JournaledLog {
  readonly sessionId: string;
  /** The journal's wait is over: the log creates its file now, with every line. */
  leaveJournal(): void;
  /** The bytes of `batch`, asked for when the journal writes: a batch is serialized then, not when it is handed over. */
  build(batch: JournalBatch): Buffer;
  /** `batch` is on disk, in the journal. */
  onBatchWritten(batch: JournalBatch): void;
  /** The journal's write of `batch` failed. */
  onBatchFailed(batch: JournalBatch, error: unknown): void;
}

/** What a seat uses of the journal (SessionJournal). */
export interface Journal {
  /** Writes `batch` of `log` (its bytes asked for when the journal writes), then tells the log it landed or failed. */
  append(log: JournaledLog, batch: JournalBatch): void;
  left(log: JournaledLog): void;
}

/**
 * A new log's place in the journal, kept by its writer until its file holds every line: whether
 * it is leaving (its next batch is the file's, from line 0), and who waits for the file.
 */
export class JournalSeat {
  leaving = false;
  /**
   * The bytes of the log's first `keptLines` lines as its batches were made for the journal: its
   * file, when it leaves, is written from them and serializes only the lines after them.
   */
  private kept: Buffer[] = [];
  keptLines = 0;
  /** Who waits for the file: called with nothing once it holds every line, or with the error of its failed write. */
  private waiters: ((error?: unknown) => void)[] = [];

  constructor(
    private readonly journal: Journal,
    private readonly log: JournaledLog,
  ) {}

  append(batch: JournalBatch): void {
    this.journal.append(this.log, batch);
  }

  /** `data`, the bytes of lines `from` to `to`, was made for the journal: kept when it continues what is kept; returns it. */
  keep(from: number, to: number, data: Buffer): Buffer {
    if (from === this.keptLines && to > from) {
      this.kept.push(data);
      this.keptLines = to;
    }
    return data;
  }

  /** The bytes of the first `keptLines` lines. */
  keptBytes(): Buffer {
    if (this.kept.length > 1) this.kept = [Buffer.concat(this.kept)];
    return this.kept[0] ?? Buffer.alloc(0);
  }

  /** `done()` once the file holds every line; `done(error)` when a write of the file failed. */
  whenFileWritten(done: (error?: unknown) => void): void {
    this.waiters.push(done);
  }

  /** The file holds every line: the log is no longer the journal's. */
  left(): void {
    this.journal.left(this.log);
    for (const done of this.waiters.splice(0)) done();
  }

  /** A write of the file failed: its next try starts from line 0 again. */
  fileFailed(error: unknown): void {
    this.leaving = true;
    for (const done of this.waiters.splice(0)) done(error);
  }
}

