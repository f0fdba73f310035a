import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { isArborError } from '../../../src/core/errors';
import type { InteractionPrompt } from '../../../src/core/interaction';
import type { ModelScript } from '../../../src/core/models';
import type { Runtime } from '../../../src/core/runtime';
import { OVERLAP_OPTIONS, type WriteGuard } from '../../../src/core/scopes/scopeRuns';
import { makeRuntime, reasons, toolResults, until } from '../../support/runtimeFixture';

type Call = { name: string; arguments: Record<string, unknown> };
const edit = (oldText: string, newText: string): Call => ({ name: 'edit_file', arguments: { path: 'src/f.ts', old_text: oldText, new_text: newText } });
const ORIGINAL = 'one\ntwo\nthree\n';

describe('two agents, one file', () => {
  let workspace: string;
  const file = () => path.join(workspace, 'src/f.ts');
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-held-'));
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(file(), ORIGINAL);
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  /** `first` edits line one and then works on (hangs) until stopped; `second` edits line three. */
  const SCRIPT: ModelScript = {
    version: 1,
    agents: {
      first: { turns: [[{ toolCalls: [edit('one', 'ONE')] }, { hang: true }]] },
      second: { turns: [[{ toolCalls: [edit('three', 'THREE')] }, { text: 'done' }]] },
    },
  };

  /** A human who answers the overlap question with `choice` and allows every edit once. */
  function human(runtime: Runtime, choice: string) {
    const prompts: InteractionPrompt[] = [];
    runtime.interaction.registerProvider({
      ask: async (p) => {
        prompts.push(p);
        return [{ id: p.questions[0].id, selected: [p.questions[0].id === 'overlap' ? choice : 'Allow once'] }];
      },
    });
    return prompts;
  }

  async function firstHasWritten(runtime: Runtime): Promise<Agent> {
    const first = runtime.startRoot({ prompt: 'go', label: 'first' });
    await until(() => fs.readFileSync(file(), 'utf8').startsWith('ONE'), 'the first agent\'s edit');
    await until(() => first.status === 'running' && (runtime.writes.guard as WriteGuard).queue.busy(file()) === false, 'the first agent working on');
    return first;
  }

  it('an interactive run asks, naming both agents and showing both diffs; Stop the other stops it and the edit goes on', async () => {
    const { runtime } = makeRuntime(SCRIPT, { workspace });
    const prompts = human(runtime, OVERLAP_OPTIONS.stop);
    const first = await firstHasWritten(runtime);
    const second = runtime.startRoot({ prompt: 'go', label: 'second' });
    await second.whenIdle();
    const overlap = prompts.find((p) => p.questions[0].id === 'overlap')!;
    assert.ok(overlap, 'the overlap was asked about');
    assert.match(overlap.questions[0].question, /"second" wants to change src\/f\.ts, which "first" has changed and not yet kept or undone/);
    assert.deepStrictEqual(overlap.questions[0].options.map((o) => o.label), ['Let it', 'Deny', 'Stop the other']);
    assert.match(overlap.detail!, /The change "second" wants to make:[\s\S]*-three\n\+THREE/);
    assert.match(overlap.detail!, /The change "first" has made so far \(not yet kept or undone\):[\s\S]*-one\n\+ONE/);
    await first.whenIdle();
    assert.deepStrictEqual(reasons(first), ['aborted:user']);
    assert.strictEqual(fs.readFileSync(file(), 'utf8'), 'ONE\ntwo\nTHREE\n');
    // Both nodes hold the file with a ⚠ until a Keep or an Undo of either.
    assert.deepStrictEqual(runtime.writes.guard.overlapsOf(first.id).map((o) => o.path), ['src/f.ts']);
    assert.deepStrictEqual(runtime.writes.guard.overlapsOf(second.id).map((o) => [o.writer, o.other, o.otherHeld]), [[second.id, first.id, 'changed']]);
    assert.strictEqual(runtime.writes.overlapText(first.id), '⚠ src/f.ts (also "second")');
    assert.strictEqual(runtime.writes.overlapText(second.id), '⚠ src/f.ts (also "first")');
    assert.match(runtime.writes.guard.envelopeLines(second, (x) => x), /- ⚠ src\/f\.ts: "first" had changed it; Keep or Undo of either change ends this/);
    await runtime.changes.keep(first.id, 'src/f.ts');
    await until(() => runtime.writes.guard.overlapsOf(second.id).length === 0, 'the overlap to end with the Keep');
    assert.strictEqual(runtime.writes.guard.overlapsOf(first.id).length, 0);
    assert.strictEqual(runtime.writes.overlapText(second.id), undefined);
    await runtime.dispose();
  });

  it('Deny leaves the file to the other agent; Let it lets the edit go on without stopping anyone', async () => {
    for (const [choice, text] of [[OVERLAP_OPTIONS.deny, 'ONE\ntwo\nthree\n'], [OVERLAP_OPTIONS.let, 'ONE\ntwo\nTHREE\n']] as const) {
      fs.writeFileSync(file(), ORIGINAL);
      const { runtime } = makeRuntime(SCRIPT, { workspace });
      human(runtime, choice);
      const first = await firstHasWritten(runtime);
      const second = runtime.startRoot({ prompt: 'go', label: 'second' });
      await second.whenIdle();
      assert.strictEqual(fs.readFileSync(file(), 'utf8'), text, choice);
      assert.strictEqual(first.status, 'running', `${choice} stops nobody`);
      const result = JSON.parse(toolResults(second)[0].content);
      if (choice === OVERLAP_OPTIONS.deny) {
        assert.strictEqual(result.code, 'FILE_HELD_BY_OTHER_AGENT');
        assert.match(result.message, /The human denied it/);
        assert.strictEqual(runtime.writes.guard.overlapsOf(first.id).length, 0);
      } else {
        assert.strictEqual(result.status, 'edited');
        await runtime.changes.restore(second.id, 'src/f.ts');
        await until(() => runtime.writes.guard.overlapsOf(first.id).length === 0, 'the overlap to end with the Undo');
      }
      await runtime.dispose();
    }
  });

  it('an unattended run gets FILE_HELD_BY_OTHER_AGENT naming the other agent, and nobody is asked', async () => {
    const { runtime } = makeRuntime(SCRIPT, { workspace });
    await runtime.approvals.rules.remember({ kind: 'edit', pattern: '**' }, 'workspace');
    const prompts = human(runtime, OVERLAP_OPTIONS.let);
    const first = await firstHasWritten(runtime);
    const second = runtime.startRoot({ prompt: 'go', label: 'second', context: { nonInteractive: true } });
    await second.whenIdle();
    const result = JSON.parse(toolResults(second)[0].content);
    assert.strictEqual(result.code, 'FILE_HELD_BY_OTHER_AGENT');
    assert.deepStrictEqual(result.details.agents, [{ id: first.id, label: 'first', held: 'changed' }]);
    assert.match(result.message, /"first" has changed and not yet kept or undone.*unattended, so nobody can be asked/);
    assert.strictEqual(prompts.length, 0, 'nobody was asked (a rule allows both edits)');
    assert.strictEqual(fs.readFileSync(file(), 'utf8'), 'ONE\ntwo\nthree\n');
    await runtime.dispose();
  });

  it('a file in another live agent\'s declared scope is held by it', async () => {
    const { runtime } = makeRuntime(
      {
        version: 1,
        agents: {
          lead: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'owner', prompt: 'own src', scope: ['src/**'] } }] }, { text: 'started' }]] },
          owner: { turns: [[{ hang: true }]] },
          second: { turns: [[{ toolCalls: [edit('three', 'THREE')] }, { text: 'done' }]] },
        },
      },
      { workspace },
    );
    await runtime.approvals.rules.remember({ kind: 'edit', pattern: '**' }, 'workspace');
    const lead = runtime.startRoot({ prompt: 'go', label: 'lead', context: { nonInteractive: true } });
    await until(() => runtime.agents.all().some((a) => a.label === 'owner' && a.status === 'running'), 'the owner to run');
    const owner = runtime.agents.all().find((a) => a.label === 'owner')!;
    const second = runtime.startRoot({ prompt: 'go', label: 'second', context: { nonInteractive: true } });
    await second.whenIdle();
    const result = JSON.parse(toolResults(second)[0].content);
    assert.strictEqual(result.code, 'FILE_HELD_BY_OTHER_AGENT');
    assert.deepStrictEqual(result.details.agents, [{ id: owner.id, label: 'owner', held: 'scope' }]);
    assert.match(result.message, /lies in the scope of "owner" \(src\/\*\*\)/);
    assert.strictEqual(lead.kind, 'root');
    await runtime.dispose();
  });
});

describe('two agents, one file: races and order', () => {
  let workspace: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-race-'));
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(path.join(workspace, 'src/f.ts'), ORIGINAL);
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  /** Two unattended roots that stay live (their turns hang) for the guard to be driven directly. */
  async function twoLive() {
    const { runtime } = makeRuntime({ version: 1, agents: { '*': { turns: [[{ hang: true }]] } } }, { workspace });
    const a = runtime.startRoot({ prompt: 'go', label: 'a', context: { nonInteractive: true } });
    const b = runtime.startRoot({ prompt: 'go', label: 'b', context: { nonInteractive: true } });
    await until(() => a.status === 'running' && b.status === 'running', 'both running');
    const target = await runtime.workspace!.resolve('src/f.ts');
    const attempt = (agent: Agent, after: string) => ({ agent, file: target, before: ORIGINAL, after, signal: new AbortController().signal });
    return { runtime, a, b, target, attempt };
  }

  it('two edits that race: both pass the first check, the second is checked again in the file\'s queue and refused', async () => {
    const { runtime, a, b, target, attempt } = await twoLive();
    const guard = runtime.writes.guard;
    const fromA = attempt(a, 'A\n');
    const fromB = attempt(b, 'B\n');
    // Neither holds the file yet: both are let through before their approvals.
    const [okA, okB] = await Promise.all([guard.consentBefore(fromA), guard.consentBefore(fromB)]);
    const writes = [
      guard.apply(fromA, okA, () => runtime.changes.writeRecorded(a.id, runtime.workspace!, target, ORIGINAL, 'A\n')),
      guard.apply(fromB, okB, () => runtime.changes.writeRecorded(b.id, runtime.workspace!, target, ORIGINAL, 'B\n')),
    ];
    await writes[0];
    await assert.rejects(writes[1], (err: unknown) => isArborError(err, 'FILE_HELD_BY_OTHER_AGENT') && (err.details?.agents as Array<{ id: string }>)[0].id === a.id);
    assert.strictEqual(fs.readFileSync(target.absolute, 'utf8'), 'A\n');
    await runtime.dispose();
  });

  it('an agent whose scope takes the file after the first check is found in the queue, right before the write', async () => {
    const { runtime, a, b, target, attempt } = await twoLive();
    const guard = runtime.writes.guard;
    const fromA = attempt(a, 'A\n');
    const ok = await guard.consentBefore(fromA);
    assert.strictEqual(ok.size, 0);
    runtime.writes.set(b, guard.childScope(undefined, undefined, ['src/**']).scope);
    await assert.rejects(
      guard.apply(fromA, ok, () => runtime.changes.writeRecorded(a.id, runtime.workspace!, target, ORIGINAL, 'A\n')),
      (err: unknown) => isArborError(err, 'FILE_HELD_BY_OTHER_AGENT'),
    );
    assert.strictEqual(fs.readFileSync(target.absolute, 'utf8'), ORIGINAL);
    await runtime.dispose();
  });

  it('edits to one file are applied one at a time, in order: the second is checked against the file as the first left it', async () => {
    const { runtime, a, target, attempt } = await twoLive();
    const guard = runtime.writes.guard;
    // A write that reads the file, waits, then compares and writes: two of these interleave unless something orders them.
    const gates: Array<() => void> = [];
    const reached: string[] = [];
    const racyWrite = (who: string, after: string) => async () => {
      const current = fs.readFileSync(target.absolute, 'utf8');
      reached.push(who);
      await new Promise<void>((release) => gates.push(release));
      if (current !== ORIGINAL) throw Object.assign(new Error('stale'), { code: 'EDIT_STALE' });
      fs.writeFileSync(target.absolute, after);
    };
    const first = guard.apply(attempt(a, 'first\n'), new Set([a]), racyWrite('first', 'first\n'));
    const second = guard.apply(attempt(a, 'second\n'), new Set([a]), racyWrite('second', 'second\n'));
    await until(() => reached.length >= 1, 'the first write to start');
    assert.deepStrictEqual(reached, ['first'], 'the second waits for the first');
    gates.shift()!();
    await first;
    await until(() => reached.length === 2, 'the second write to start');
    gates.shift()!();
    await assert.rejects(second, (err: unknown) => (err as { code?: string }).code === 'EDIT_STALE');
    assert.strictEqual(fs.readFileSync(target.absolute, 'utf8'), 'first\n');
    // Another file is not held back by a queued one.
    const other = await runtime.workspace!.resolve('src/g.ts');
    assert.strictEqual((guard as WriteGuard).queue.busy(other.absolute), false);
    await runtime.dispose();
  });
});
