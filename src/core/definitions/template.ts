/**
 * What Arbor: New Agent Definition... writes: a definition that parses as it is, with a comment
 * on each field, so the file teaches its own format.
 */
export function definitionTemplate(name: string): string {
  return `---
# An Arbor agent definition: the fields below, then its instructions.
# Arbor reads .arbor/agents/*.md in each workspace folder and the folder set in arbor.agents.userFolder.
#
# name: what delegation calls it (agent: "${name}") and what its node shows.
name: ${JSON.stringify(name)}
# description: when to use it; agents read this to choose a definition.
description: Reviews a change for bugs, missing tests and unclear names. Use it after an edit.
# tools: the only tools it may use (names or globs such as "*_file"); leave it out for every tool.
tools: [read_file, list_files, search_text, get_diagnostics, update_plan]
# model: a model id or name; leave it out (or write inherit) for the run's model.
# model: inherit
# limits: per-agent limits from arbor.limits, only ever tighter than the run's.
limits:
  maxTurns: 10
  maxStepsPerTurn: 30
# kind: how it is best started: one-shot (delegate_task waits for its answer) or continuable (start_subagent).
kind: one-shot
---
You review code; you never change it.

1. Keep a plan with update_plan as you go.
2. Read the files you are pointed at, and what they call.
3. List each problem with its file and line, most serious first, or say plainly that you found none.
`;
}

/** The file a new definition is written to: its name as a file name. */
export function definitionFileName(name: string): string {
  return `${name.trim().toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'agent'}.md`;
}
