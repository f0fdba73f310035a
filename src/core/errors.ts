/**
 * Errors are values with stable codes: callers (tools, RPC handlers, the tree view) branch on
 * `code`, never on message text. Messages say what to do next.
 */
export type ArborErrorCode =
  // agents / subagents
  | 'AGENT_DISPOSED'
  | 'SUBAGENT_UNAUTHORIZED'
  | 'SUBAGENT_NOT_FOUND'
  | 'LIMIT_EXCEEDED'
  | 'BUDGET_SLICE_TOO_LARGE'
  | 'TOOL_ARGUMENTS_INVALID'
  | 'TOOL_UNKNOWN'
  | 'TOOL_FAILED'
  | 'MODEL_ERROR'
  | 'MODEL_AUTH'
  | 'MODEL_BAD_REQUEST'
  | 'MODEL_UNAVAILABLE'
  | 'MODEL_BAD_OUTPUT'
  | 'MODEL_TIMEOUT'
  | 'MODEL_TOO_LARGE'
  | 'SCRIPT_INVALID'
  // external agents (Agent Client Protocol)
  | 'EXTERNAL_AGENT_CONFIG_INVALID'
  | 'EXTERNAL_AGENT_START_FAILED'
  | 'EXTERNAL_AGENT_CRASHED'
  | 'EXTERNAL_AGENT_AUTH_REQUIRED'
  | 'EXTERNAL_AGENT_PROTOCOL'
  | 'EXTERNAL_NOT_RESUMABLE'
  | 'EXTERNAL_AGENT_DISCONNECTED'
  | 'EXTERNAL_AGENT_UNAUTHORIZED'
  // workspace
  | 'WORKSPACE_NONE'
  | 'PATH_OUTSIDE_WORKSPACE'
  | 'PATH_INVALID'
  | 'FILE_ACCESS_DENIED'
  | 'FILE_NOT_FOUND'
  | 'FILE_BINARY'
  | 'FILE_TOO_LARGE'
  | 'FILE_EXISTS'
  | 'EDIT_NOT_FOUND'
  | 'EDIT_AMBIGUOUS'
  | 'EDIT_STALE'
  | 'SEARCH_INVALID'
  | 'CHANGES_UNREADABLE'
  | 'CHANGED_SINCE'
  // write scopes and files two agents change
  | 'SCOPE_VIOLATION'
  | 'FILE_HELD_BY_OTHER_AGENT'
  // git worktrees
  | 'GIT_MISSING'
  | 'NOT_A_GIT_REPOSITORY'
  | 'GIT_FAILED'
  | 'WORKTREE_CONFLICT'
  // command sandbox
  | 'SANDBOX_UNAVAILABLE'
  | 'SANDBOX_FAILED'
  // interaction
  | 'ASK_ABORTED'
  | 'EMPTY_QUESTIONS'
  | 'CALLER_NOT_LIVE'
  | 'DELEGATED_CALLER'
  | 'BAD_INTENT'
  | 'NO_PROVIDER'
  | 'DUPLICATE_PROVIDER'
  | 'ASK_CANCELLED'
  | 'BAD_ANSWER'
  | 'POLICY_INVALID'
  | 'INTERNAL_KEY_REJECTED'
  // sessions
  | 'SESSION_CORRUPT'
  | 'SESSION_VERSION'
  | 'SESSION_UNREADABLE'
  | 'LIVE_RECORD_UNREADABLE'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_EXISTS'
  | 'SESSION_IN_USE'
  | 'SESSION_WRITE_FAILED'
  | 'SESSION_EVENT_INVALID'
  | 'SESSION_FILE_LOST'
  | 'INPUT_INVALID'
  // agent definitions (.arbor/agents and the formats Arbor reads)
  | 'DEFINITION_INVALID'
  | 'DEFINITION_UNKNOWN'
  | 'TOOL_NOT_ALLOWED'
  // installation
  | 'PART_LOAD_FAILED'
  | 'INTERNAL';

export class ArborError extends Error {
  constructor(
    readonly code: ArborErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ArborError';
  }

  toJSON(): { code: ArborErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
  }
}

export function isArborError(e: unknown, code?: ArborErrorCode): e is ArborError {
  return e instanceof ArborError && (code === undefined || e.code === code);
}

/** The reason an abort carries, readable from `signal.reason`. */
export type CancelCause = 'user' | 'parent' | 'disposed' | 'budget';

export class AbortedError extends Error {
  constructor(override readonly cause: CancelCause) {
    super(`aborted (${cause})`);
    this.name = 'AbortError';
  }

  /**
   * One without a stack trace, for a turn's abort: a Stop is expected, its stack says nothing,
   * and capturing it was a third of the time from a Stop to the model seeing it.
   */
  static withoutStack(cause: CancelCause): AbortedError {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return new AbortedError(cause);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/** The cause behind an aborted signal, when Arbor aborted it. */
export function abortCauseOf(signal: AbortSignal): CancelCause | undefined {
  const r: unknown = signal.reason;
  return r instanceof AbortedError ? r.cause : undefined;
}

/** A run limit was hit: the call fails with LIMIT_EXCEEDED and the turn ends with reason `budget`. */
export function limitExceeded(message: string): ArborError {
  return new ArborError('LIMIT_EXCEEDED', message);
}

/** What a thrown value says: an Error's message, anything else as text (`throw 'x'` is legal). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The errno name of a failed system call (`ENOENT`, `EEXIST`...), when `err` is such an Error. */
export function errnoOf(err: unknown): string | undefined {
  const code: unknown = err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Anything thrown, as an ArborError: Arbor's own errors as they are, anything else under `code`. */
export function asArborError(err: unknown, code: ArborErrorCode): ArborError {
  return err instanceof ArborError ? err : new ArborError(code, messageOf(err));
}

/**
 * A failure as a stable code and a message for the model; unexpected throws become INTERNAL,
 * their message prefixed with what failed (`Asking the human failed: ...`).
 */
export function toFailure(err: unknown, what = 'Asking the human'): { code: string; message: string } {
  if (err instanceof ArborError) return { code: err.code, message: err.message };
  return { code: 'INTERNAL', message: `${what} failed: ${messageOf(err)}` };
}
