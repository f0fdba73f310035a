import type { RunLimitsInput } from '../../core';
import type { ModelScript } from '../../core/models';

export const DEMO_ROOT_LABEL = 'Demo lead';

/** The demo run's limits: the Watcher polls until you stop it, so it gets ten minutes of steps. */
export const DEMO_LIMITS: RunLimitsInput = Object.freeze({ maxStepsPerTurn: 400 });

/** The one edit the demo proposes, to `src/shoppingList.js` of the demo workspace. */
export const DEMO_EDIT = Object.freeze({
  oldText: 'throw new Error(`no price for ${item}`);',
  newText: 'throw new Error(`no price for ${item} in data/prices.csv`);',
});

/**
 * The built-in demo, played by the scripted model so it needs no API key. A root delegates to
 * two continuable subagents and one one-shot subagent; the Watcher checks and waits in a loop
 * until you stop it (a message from the lead waits in its queue); the one-shot Summarizer tries
 * to ask you and gets the structured refusal; the lead asks you two questions through quick
 * picks, then finds, reads and proposes a one-line edit of src/shoppingList.js that you approve
 * on its diff; a message you send to the stopped Watcher resumes its parked queue in order. It
 * means to show no warning: the Watcher polls with waits, so no runaway guard warns about it.
 */
/** The lead's plan after `done` of its steps (update_plan; the node and the conversation view show it). */
function leadPlan(done: number): { name: string; arguments: Record<string, unknown> } {
  const steps = ['split the work', 'ask how to report', 'fix the error message', 'have it reviewed'];
  return { name: 'update_plan', arguments: { items: steps.map((step, i) => ({ step, status: i < done ? 'done' : i === done ? 'in_progress' : 'pending' })) } };
}

export const demoScript: ModelScript = {
  version: 1,
  agents: {
    // Any agent the user starts on the demo model gets told how to run it for real.
    '*': {
      turns: [
        [
          {
            text:
              'This is Arbor\'s scripted demo model: it plays the demo and does not read your task. To run "{{lastMessage}}" for real, ' +
              'pick a model with Arbor: Select Model... (a VS Code chat model such as Copilot, or an OpenAI-compatible endpoint such as Ollama).',
          },
        ],
      ],
      afterLastTurn: 'repeat-last',
    },
    [DEMO_ROOT_LABEL]: {
      turns: [
        [
          {
            text: 'I will split this up: a Researcher for the prices, a Watcher for the build, and a one-shot Summarizer for the shopping list.',
            toolCalls: [
              leadPlan(0),
              { name: 'start_subagent', arguments: { label: 'Researcher', prompt: 'Compare the prices in data/prices.csv and report the cheapest options.' } },
              { name: 'start_subagent', arguments: { label: 'Watcher', prompt: 'Watch the build and tell me when anything changes.' } },
            ],
          },
          {
            delayMs: 800,
            toolCalls: [
              { name: 'send_message', arguments: { agent_id: '{{agent:Watcher}}', message: 'When you get a chance, also check the test logs.' } },
              { name: 'delegate_task', arguments: { label: 'Summarizer', prompt: 'Summarise the shopping list in src/shoppingList.js.' } },
            ],
          },
          {
            toolCalls: [
              leadPlan(1),
              {
                name: 'ask_user_question',
                arguments: {
                  questions: [
                    {
                      id: 'format',
                      header: 'Report',
                      question: 'How should I write up the results?',
                      options: [
                        { label: 'Short summary', description: 'A few bullet points' },
                        { label: 'Full report', description: 'Sections with a table of prices' },
                      ],
                    },
                    {
                      id: 'extras',
                      header: 'Extras',
                      question: 'What else should the report include?',
                      multiSelect: true,
                      options: [{ label: 'Price chart' }, { label: 'Open questions' }, { label: 'Next steps' }],
                    },
                  ],
                },
              },
            ],
          },
          {
            text: 'Thanks, I will write it up that way. One small fix meanwhile: the error for a missing price should say where prices come from.',
            toolCalls: [{ name: 'search_text', arguments: { query: 'no price for' } }],
          },
          { toolCalls: [{ name: 'read_file', arguments: { path: 'src/shoppingList.js', start_line: 18, end_line: 26 } }] },
          {
            text: 'Proposing the edit: you see its whole diff before anything changes, and Undo in the editor reverts it.',
            toolCalls: [
              {
                name: 'edit_file',
                arguments: { path: 'src/shoppingList.js', old_text: DEMO_EDIT.oldText, new_text: DEMO_EDIT.newText },
              },
            ],
          },
          {
            text: 'Asking the Reviewer (an agent definition in .arbor/agents of the demo workspace) to check the edit: it may only read.',
            toolCalls: [leadPlan(3), { name: 'delegate_task', arguments: { agent: 'Reviewer', prompt: 'Review the change to the "no price" error in src/shoppingList.js.' } }],
          },
          { toolCalls: [leadPlan(4)] },
          { text: 'Done. The Researcher and the Watcher keep working: stop either one from the Agents view.' },
        ],
        [{ text: 'Noted the report from my subagent.' }],
      ],
      afterLastTurn: 'repeat-last',
    },
    // The demo workspace's .arbor/agents/reviewer.md: started by name, it may only read (and keep its plan).
    Reviewer: {
      turns: [
        [
          { delayMs: 500, toolCalls: [{ name: 'update_plan', arguments: { items: [{ step: 'read the change', status: 'in_progress' }, { step: 'report', status: 'pending' }] } }] },
          { toolCalls: [{ name: 'read_file', arguments: { path: 'src/shoppingList.js', start_line: 18, end_line: 26 } }] },
          { toolCalls: [{ name: 'update_plan', arguments: { items: [{ step: 'read the change', status: 'done' }, { step: 'report', status: 'in_progress' }] } }] },
          { delayMs: 500, text: 'Review: the error now says where prices come from. No problems found.' },
        ],
      ],
      afterLastTurn: 'repeat-last',
    },
    Researcher: {
      turns: [
        [
          { delayMs: 2500, text: 'Reading data/prices.csv…', toolCalls: [{ name: 'list_agents', arguments: {} }] },
          { delayMs: 2500, text: 'Comparing prices per kilogram…', toolCalls: [{ name: 'list_agents', arguments: {} }] },
          { delayMs: 2500, text: 'Checking the weekly offers…', toolCalls: [{ name: 'list_agents', arguments: {} }] },
          { delayMs: 2500, text: 'Findings: apples and oats are cheapest per kilogram this week; coffee is cheaper in the large pack.' },
        ],
        [{ text: 'Follow-up noted: {{lastMessage}}' }],
      ],
      afterLastTurn: 'repeat-last',
    },
    Watcher: {
      turns: [
        // It checks, then waits before the next check: a poll, which the runaway guards leave alone.
        {
          steps: [{ text: 'Build is still green; watching…', toolCalls: [{ name: 'list_agents', arguments: {} }, { name: 'wait', arguments: { seconds: 1.5 } }] }],
          loop: true,
        },
        [{ text: 'Resumed with the queued request: "{{lastMessage}}" The test logs are clean.' }],
        [{ text: 'Got your message: "{{lastMessage}}"' }],
      ],
      afterLastTurn: 'echo',
    },
    Summarizer: {
      turns: [
        [
          {
            delayMs: 1500,
            text: 'Before I summarise, I need to know what to focus on.',
            toolCalls: [
              {
                name: 'ask_user_question',
                arguments: { questions: [{ id: 'focus', question: 'Which items should the summary focus on?', options: [{ label: 'Fruit' }, { label: 'Everything' }] }] },
              },
            ],
          },
          {
            delayMs: 500,
            text: 'Summary: six items, mostly fruit and breakfast staples. Open question for the user (I could not ask it myself): which items should the summary focus on? I covered everything.',
          },
        ],
      ],
    },
  },
};
