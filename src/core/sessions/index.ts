/**
 * Sessions: the header and event log every agent writes, the in-memory log (default and test
 * double), the durable JSONL store with its catalog, and the data functions for resume.
 */
export type {
  AgentKind,
  Answer,
  ApprovalDecision,
  InteractionMode,
  Question,
  QuestionOption,
  SessionEvent,
  SessionEventType,
  SessionHeader,
  SessionLog,
  SessionLogFactory,
  TurnEndReason,
} from './types';
export { SESSION_FORMAT_VERSION } from './types';
export { MemorySessionLog, memorySessionLogs } from './memoryLog';
export { sessionEventSchema, sessionHeaderSchema } from './schema';
export { sessionFileName, sessionIdFromFileName, SESSION_FILE_EXTENSION } from './sessionFileName';
export { JsonlSessionLog } from './jsonlSessionLog';
export { DEFAULT_WRITE_POLICY, type JsonlWritePolicy } from './writePolicy';
export { JsonlSessionStore, type JsonlSessionStoreOptions } from './jsonlSessionStore';
export type { LoadedSession, SessionCatalog, SessionCatalogEntry, SessionDiagnostic, SessionDiagnosticCode, SessionRepairs } from './sessionCatalog';
export { previewOf, type SessionSummary } from './sessionSummary';
export { summarizeSession } from './scanState';
export { describeDamage, salvagedSessionWarning, type SessionDamage } from './sessionFileParser';
export { ancestorsOf, childrenOf } from './lineage';
export { conversationFromEvents, MISSING_TOOL_RESULT } from './conversationFromEvents';
export { resumedSessionHeader } from './resumedSessionHeader';
export { pendingQueueFromEvents, type PendingMessage } from './pendingQueue';
export { pendingHumanWait, type PendingHumanWait } from './pendingWait';
