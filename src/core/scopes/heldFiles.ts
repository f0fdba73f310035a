import type { Agent } from '../agents/agent';
import { ArborError, isArborError } from '../errors';
import { MAX_DETAIL_LENGTH } from '../interaction/userInteraction';
import { describeScope, scopeAllows } from './scopeGlobs';
import type { GuardState, ScopeKit, WriteAttempt, WriteScope } from './writeScope';

/**
 * Two agents, one file: who else holds a file an agent is about to change, what the human is
 * asked, and the write made in the file's queue once the answer is in.
 *
 * Rules:
 * - another agent holds a file when it is live and has changed the file (a change record not
 *   yet kept or undone) or the file lies in its declared scope. The writer's own ancestors never
 *   do: they delegated the work (and their scope holds the writer's by construction). Agents
 *   working in a folder of their own (a worktree run) neither hold the user's files nor are held;
 * - only someone who may be asked for approval is asked (an interactive run's own root, the
 *   approval seam's rule): the prompt names both agents, shows this change's diff and the other
 *   agent's change so far, and offers Let it, Deny and Stop the other. Anyone else gets
 *   FILE_HELD_BY_OTHER_AGENT at once, naming the other agent: nothing waits;
 * - an answer covers the agents it named for this one write; the check is made again in the
 *   file's queue right before the write, so an agent that took the file meanwhile is asked
 *   about (or refused) then: a race never slips past.
 */
export const OVERLAP_OPTIONS = Object.freeze({ let: 'Let it', deny: 'Deny', stop: 'Stop the other' });

interface Holder {
  readonly agent: Agent;
  readonly held: 'changed' | 'scope';
}

/** SCOPE_VIOLATION naming the path, the scope and who set it, when the path is outside the scope. */
export function checkInScope(kit: ScopeKit, agent: Agent, scope: WriteScope, relative: string): void {
  if (scopeAllows(kit, scope, relative)) return;
  const setBy = scope.setBy[scope.setBy.length - 1] ?? 'its definition';
  throw new ArborError(
    'SCOPE_VIOLATION',
    `"${relative}" is outside the scope of "${agent.label}" (${describeScope(scope)}), set by ${setBy}. Nothing was written. Change only files inside the scope, and put what else needs changing in your result.`,
    { path: relative, scope: scope.terms, setBy: scope.setBy },
  );
}

async function holdersOf(guard: GuardState, attempt: WriteAttempt): Promise<Holder[]> {
  const { agents } = guard.deps;
  const writer = attempt.agent;
  if (writer.run.workspace) return [];
  const ancestors = new Set<Agent>();
  for (let a = agents.parentOf(writer); a && !ancestors.has(a); a = agents.parentOf(a)) ancestors.add(a);
  const holders: Holder[] = [];
  for (const other of agents.all()) {
    if (other === writer || ancestors.has(other) || other.run.workspace || other.disposed) continue;
    if ((await guard.heldPaths(other.id)).has(attempt.file.relative)) holders.push({ agent: other, held: 'changed' });
    else {
      const scope = guard.scopeOf(other);
      if (scope && scopeAllows(guard.kit, scope, attempt.file.relative)) holders.push({ agent: other, held: 'scope' });
    }
  }
  // An agent that left while its record was read holds nothing.
  return holders.filter((h) => agents.isLive(h.agent));
}

/**
 * Asks about (or refuses) the holders not yet consented to; resolves `consented` with those the
 * human let through (stopped ones included).
 */
export async function consentToHolders(guard: GuardState, attempt: WriteAttempt, consented: ReadonlySet<Agent>): Promise<ReadonlySet<Agent>> {
  const fresh = (await holdersOf(guard, attempt)).filter((h) => !consented.has(h.agent));
  if (fresh.length === 0) return consented;
  const writer = attempt.agent;
  const names = fresh.map((h) => `"${h.agent.label}" (${h.agent.id})`).join(', ');
  const how = fresh.map((h) => describeHold(guard, h)).join('; ');
  const held = (why: string): ArborError =>
    new ArborError(
      'FILE_HELD_BY_OTHER_AGENT',
      `"${attempt.file.relative}" is held by another live agent: ${how}. ${why} Nothing was written. Leave this file to ${names}, or put the change you wanted in your result.`,
      { path: attempt.file.relative, agents: fresh.map((h) => ({ id: h.agent.id, label: h.agent.label, held: h.held })) },
    );
  if (writer.run.policy.approvalEligibility({ isSubagent: writer.kind !== 'root' }) === 'deny') {
    throw held(writer.kind !== 'root' ? 'A delegated agent cannot ask the human to let it change another agent\'s file.' : `This ${writer.run.policy.mode} run is unattended, so nobody can be asked.`);
  }
  const detail = await overlapDetail(guard, attempt, fresh);
  if (detail.length > MAX_DETAIL_LENGTH) throw held('The two changes are too long to show the human side by side.');
  let selected: readonly string[];
  try {
    const [answer] = await guard.deps.interaction.ask({
      agent: writer,
      signal: attempt.signal,
      intent: 'approval',
      detail,
      questions: [
        {
          id: 'overlap',
          header: 'Two agents, one file',
          question: `"${writer.label}" wants to change ${attempt.file.relative}, which ${how}.`.slice(0, 4_000),
          options: [
            { label: OVERLAP_OPTIONS.let, description: `Let "${writer.label}" change it too (its approval is asked as usual).` },
            { label: OVERLAP_OPTIONS.deny, description: `Refuse; "${writer.label}" is told the file is another agent's.` },
            { label: OVERLAP_OPTIONS.stop, description: `Stop ${names} (as its Stop does), then let "${writer.label}" change it.` },
          ],
        },
      ],
    });
    selected = answer.selected;
  } catch (err) {
    if (isArborError(err, 'ASK_ABORTED')) throw err;
    throw held(isArborError(err, 'ASK_CANCELLED') ? 'The human dismissed the question.' : `The human could not be asked (${isArborError(err) ? err.code : 'ASK_FAILED'}).`);
  }
  if (selected.includes(OVERLAP_OPTIONS.stop)) {
    // A one-shot agent has no Stop of its own: its turn is cancelled, and its holder hears it ended.
    for (const h of fresh) if (h.agent.kind === 'one-shot') h.agent.cancel('user');
    else guard.deps.stop(h.agent);
  } else if (!selected.includes(OVERLAP_OPTIONS.let)) {
    throw held('The human denied it.');
  }
  return new Set([...consented, ...fresh.map((h) => h.agent)]);
}

/** In the file's queue: who holds it now (asked about if new), the write, then the overlaps it made. */
export async function writeChecked(guard: GuardState, attempt: WriteAttempt, consented: ReadonlySet<Agent>, write: () => Promise<void>): Promise<void> {
  const allowed = await consentToHolders(guard, attempt, consented);
  attempt.signal.throwIfAborted();
  await write();
  const { agents } = guard.deps;
  for (const h of await holdersOf(guard, attempt)) {
    if (!allowed.has(h.agent) || !agents.isLive(attempt.agent)) continue;
    guard.overlaps.add({ path: attempt.file.relative, writer: attempt.agent.id, writerLabel: attempt.agent.label, other: h.agent.id, otherLabel: h.agent.label, otherHeld: h.held });
  }
}

function describeHold(guard: GuardState, h: Holder): string {
  if (h.held === 'changed') return `"${h.agent.label}" has changed and not yet kept or undone`;
  const scope = guard.scopeOf(h.agent);
  return `lies in the scope of "${h.agent.label}" (${scope ? describeScope(scope) : ''})`;
}

/** Both changes: this write's diff, and each other agent's change so far (its original against the file now). */
async function overlapDetail(guard: GuardState, attempt: WriteAttempt, holders: readonly Holder[]): Promise<string> {
  const { unifiedDiff } = guard.kit;
  const path = attempt.file.relative;
  const parts = [`The change "${attempt.agent.label}" wants to make:`, unifiedDiff(path, attempt.before, attempt.after)];
  for (const h of holders) {
    if (h.held === 'scope') {
      parts.push(`"${h.agent.label}" has not changed ${path}; it lies in its declared scope (${describeHold(guard, h).replace(/^lies in the scope of "[^"]*" /, '')}).`);
      continue;
    }
    const entry = (await guard.deps.changes.list(h.agent.id)).find((f) => f.path === path);
    parts.push(`The change "${h.agent.label}" has made so far (not yet kept or undone):`, entry ? unifiedDiff(path, entry.original, attempt.before ?? '') : '(its record is gone)');
  }
  return parts.join('\n\n');
}
