import type { DefinitionFormat } from './types';

/**
 * Claude Code's `.claude/agents/*.md` and Copilot's `.github/agents/*.agent.md`, mapped onto
 * Arbor's fields. What has an Arbor counterpart is carried over; everything else (a colour,
 * hooks, handoffs, a permission mode, a tool Arbor does not have) is left out and named in a
 * note, so the log says exactly what of the file is not in effect. Leaving a tool out only ever
 * narrows what the agent may do; a permission mode is never carried over, since a file in the
 * workspace must not change the approvals of the run.
 */
export interface MappedFrontmatter {
  /** The fields in Arbor's shape, for Arbor's schema to check. */
  fields: Record<string, unknown>;
  notes: string[];
}

const CLAUDE_TOOLS: Record<string, readonly string[]> = {
  read: ['read_file'],
  grep: ['search_text'],
  glob: ['list_files'],
  ls: ['list_files'],
  edit: ['edit_file'],
  multiedit: ['edit_file'],
  write: ['create_file', 'edit_file'],
  bash: ['run_command'],
  task: ['delegate_task', 'start_subagent'],
  todowrite: ['update_plan'],
};

const COPILOT_TOOLS: Record<string, readonly string[]> = {
  read: ['read_file'],
  readfile: ['read_file'],
  edit: ['edit_file', 'create_file'],
  editfiles: ['edit_file', 'create_file'],
  createfile: ['create_file'],
  search: ['search_text', 'list_files'],
  codebase: ['search_text', 'list_files', 'read_file'],
  filesearch: ['list_files'],
  textsearch: ['search_text'],
  listdirectory: ['list_files'],
  runcommands: ['run_command'],
  runinterminal: ['run_command'],
  execute: ['run_command'],
  terminal: ['run_command'],
  problems: ['get_diagnostics'],
  todos: ['update_plan'],
  runsubagent: ['delegate_task', 'start_subagent'],
  agent: ['delegate_task', 'start_subagent'],
};

/** Claude's model aliases name Anthropic's models, which a run here may not have: they mean the run's model. */
const CLAUDE_MODEL_ALIASES = new Set(['inherit', 'sonnet', 'opus', 'haiku']);

export function mapOtherFormat(format: Exclude<DefinitionFormat, 'arbor'>, data: Record<string, unknown>): MappedFrontmatter {
  const fields: Record<string, unknown> = {};
  const notes: string[] = [];
  const left: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    switch (key) {
      case 'name':
      case 'description':
        fields[key] = value;
        break;
      case 'tools': {
        const tools = mapTools(format, value, notes);
        if (tools !== undefined) fields.tools = tools;
        break;
      }
      case 'model':
        if (typeof value === 'string' && (format === 'claude' ? CLAUDE_MODEL_ALIASES.has(value.trim().toLowerCase()) : false)) {
          if (value.trim().toLowerCase() !== 'inherit') notes.push(`model "${value}" is a Claude alias; the run's model is used`);
        } else {
          fields.model = value;
        }
        break;
      default:
        left.push(key);
    }
  }
  if (left.length) notes.unshift(`ignored field${left.length === 1 ? '' : 's'} ${left.map((k) => `"${k}"`).join(', ')} (no Arbor counterpart)`);
  return { fields, notes };
}

/** Claude writes tools as "Read, Grep, Glob" or a list; Copilot as a list, possibly namespaced ("search/codebase"). */
function mapTools(format: Exclude<DefinitionFormat, 'arbor'>, value: unknown, notes: string[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  // A malformed tools value is handed on as it is, for Arbor's schema to refuse with its own words.
  if (!list || !list.every((t) => typeof t === 'string')) return value as string[];
  const table = format === 'claude' ? CLAUDE_TOOLS : COPILOT_TOOLS;
  const mapped = new Set<string>();
  const unmapped: string[] = [];
  for (const raw of list) {
    const tool = raw.trim();
    if (!tool) continue;
    const names = table[tool.toLowerCase()] ?? table[tool.split('/').pop()!.toLowerCase()] ?? table[tool.split('/')[0].toLowerCase()];
    if (names) for (const n of names) mapped.add(n);
    else unmapped.push(tool);
  }
  if (unmapped.length) notes.push(`tool${unmapped.length === 1 ? '' : 's'} ${unmapped.map((t) => `"${t}"`).join(', ')} left out (Arbor has no such tool)`);
  return [...mapped];
}
