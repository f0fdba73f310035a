import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPROVAL_OPTIONS } from '../../../src/core/interaction';
import { Runtime } from '../../../src/core/runtime';
import { approver, recordingModel, toolResults } from '../../support/runtimeFixture';

const run = { name: 'run_command', arguments: { command: 'true' } };
const delegate = (label: string) => ({ name: 'delegate_task', arguments: { label, prompt: 'run it' } });

describe('approval grants in the runtime (the registry is the lineage)', function () {
  this.timeout(30_000);
  let folder: string;
  beforeEach(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-grants-'))));
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('a branch grant covers a subagent started after it, and not a subagent of another root; it ends with its holder', async () => {
    const { model, calls } = recordingModel({
      version: 1,
      agents: {
        Lead: { turns: [[{ toolCalls: [run] }, { toolCalls: [delegate('Helper')] }, { text: 'done' }]] },
        Helper: { turns: [[{ toolCalls: [run] }, { text: 'ran' }]] },
        Other: { turns: [[{ toolCalls: [delegate('Kid')] }, { text: 'done' }]] },
        Kid: { turns: [[{ toolCalls: [run] }, { text: 'tried' }]] },
      },
    });
    let n = 0;
    const runtime = new Runtime({ model, workspace: folder, newId: (label) => `${label}#${++n}` });
    const person = approver(APPROVAL_OPTIONS.branch);
    runtime.interaction.registerProvider(person.provider);
    try {
      const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
      await lead.whenIdle();
      assert.equal(person.prompts.length, 1, 'only the lead was asked');
      assert.equal(runtime.approvals.grants.grants().length, 1);
      const helperLog = runtime.approvals.grants.grants()[0];
      assert.equal(helperLog.scope, 'branch');
      assert.equal(helperLog.path, 'Lead');
      const other = runtime.startRoot({ prompt: 'go', label: 'Other' });
      await other.whenIdle();
      assert.equal(person.prompts.length, 1, 'the other root\'s subagent is denied at once, not asked');
      // What each subagent's model was told its command came to.
      const seenBy = (label: string): string => JSON.stringify(calls.filter((c) => c.agentLabel === label).at(-1)?.messages.at(-1));
      assert.match(seenBy('Kid'), /APPROVAL_DENIED/);
      assert.match(seenBy('Kid'), /delegated agent/);
      assert.doesNotMatch(seenBy('Helper'), /APPROVAL_DENIED/);
      assert.match(seenBy('Helper'), /exitCode|exit_code/);
      const leadResults = toolResults(lead);
      assert.match(leadResults[0].content, /exitCode|exit/);
      assert.equal(leadResults[1].content, 'ran');
      await runtime.end(lead);
      assert.deepEqual(runtime.approvals.grants.grants(), [], 'the grant ended with its holder');
    } finally {
      await runtime.dispose();
    }
  });
});
