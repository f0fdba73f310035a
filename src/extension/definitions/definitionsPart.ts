// The part of agent definitions that only workspaces with definition files need: the parser and
// its YAML library, reading the files and showing their problems, Run Agent...'s pick and Arbor:
// New Agent Definition... It loads the first time a definition file is found or the command runs
// (see definitionFiles.ts and parts.ts).
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import {
  definitionFileName,
  definitionName,
  definitionTemplate,
  MAX_DEFINITION_FILE_BYTES,
  parseDefinitionFile,
  resolveDefinitions,
  type AgentDefinition,
  type DefinitionFileInput,
  type ResolvedDefinitions,
} from '../../core/definitions';
import { reportError } from '../errorReporting';
import { userDefinitionsFolder, type DefinitionPlace } from './definitionFiles';

/** Every file of `places` read (one too large is refused unread), parsed whole or refused whole, then which are in use. */
export async function readDefinitions(files: ReadonlyArray<{ uri: vscode.Uri; place: DefinitionPlace }>, knownTools: ReadonlySet<string>): Promise<ResolvedDefinitions> {
  const inputs: DefinitionFileInput[] = [];
  const tooLarge: string[] = [];
  for (const { uri, place } of files) {
    // Read from the disk as the folders were listed (definitionFiles.ts); a file gone since is left out.
    let text: string;
    try {
      const stat = await fs.promises.stat(uri.fsPath);
      if (stat.size > MAX_DEFINITION_FILE_BYTES) {
        tooLarge.push(uri.fsPath);
        continue;
      }
      text = await fs.promises.readFile(uri.fsPath, 'utf8');
    } catch {
      // Deleted between the listing and the read: the next reading (its watcher fired) has it right.
      continue;
    }
    inputs.push({ file: uri.fsPath, text, format: place.format, scope: place.scope });
  }
  const resolved = resolveDefinitions(inputs.map((f) => parseDefinitionFile(f, knownTools)));
  for (const file of tooLarge) resolved.refused.push({ file, message: `the file is larger than ${MAX_DEFINITION_FILE_BYTES / 1024} KiB` });
  return resolved;
}

/**
 * A refused file is an error on the line at fault (the Problems view lists it, a click opens
 * it); what was left out of a file, or which of two same-named files won, is a hint on its first
 * line. Each is a line in the log too.
 */
export function showDefinitionProblems(diagnostics: vscode.DiagnosticCollection, log: vscode.LogOutputChannel, resolved: ResolvedDefinitions): void {
  const byFile = new Map<string, vscode.Diagnostic[]>();
  const add = (file: string, d: vscode.Diagnostic): void => {
    d.source = 'Arbor';
    byFile.set(file, [...(byFile.get(file) ?? []), d]);
  };
  for (const r of resolved.refused) {
    const line = Math.max(0, (r.line ?? 1) - 1);
    add(r.file, new vscode.Diagnostic(new vscode.Range(line, 0, line, 1000), `Agent definition not used: ${r.message}.`, vscode.DiagnosticSeverity.Error));
    log.warn(`Agent definition ${r.file} is not used: ${r.message}`);
  }
  for (const n of resolved.notes) {
    add(n.file, new vscode.Diagnostic(new vscode.Range(0, 0, 0, 3), n.message, vscode.DiagnosticSeverity.Information));
    log.info(`Agent definition ${n.file}: ${n.message}`);
  }
  diagnostics.clear();
  for (const [file, list] of byFile) diagnostics.set(vscode.Uri.file(file), list);
  if (resolved.definitions.length) log.info(`Agent definitions: ${resolved.definitions.map((d) => `${d.name} (${d.file})`).join(', ')}`);
}

/** The item Run Agent... lists first: a run without a definition. */
export const NO_DEFINITION_LABEL = 'No definition';

/**
 * Run Agent...'s choice of definition, when there are any: "No definition" first, then each
 * definition with where it came from. Resolves to the definition, `null` for none, or
 * undefined when the user cancels.
 */
export async function pickDefinition(runtime: Runtime, title: string): Promise<AgentDefinition | null | undefined> {
  const definitions = runtime.definitions.list();
  if (definitions.length === 0) return null;
  type Item = vscode.QuickPickItem & { definition: AgentDefinition | null };
  const items: Item[] = [
    { label: NO_DEFINITION_LABEL, description: 'a general agent with every tool', definition: null },
    ...[...definitions]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((d): Item => ({ label: d.name, description: `${d.scope} · ${vscode.workspace.asRelativePath(d.file)}`, detail: d.description.replace(/\s+/g, ' '), definition: d })),
  ];
  const chosen = await vscode.window.showQuickPick(items, { title, placeHolder: 'Start it as one of your agent definitions?', matchOnDescription: true, matchOnDetail: true });
  return chosen === undefined ? undefined : chosen.definition;
}

/**
 * Arbor: New Agent Definition...: asks for a name, writes a commented template to the first
 * workspace folder's `.arbor/agents/` (the user folder when no folder is open) and opens it. An
 * existing file is opened, never overwritten.
 */
export async function newAgentDefinition(log: vscode.LogOutputChannel, nameArgument?: unknown): Promise<string | undefined> {
  try {
    const name =
      typeof nameArgument === 'string'
        ? nameArgument
        : await vscode.window.showInputBox({
            title: 'Arbor: New Agent Definition',
            prompt: 'Its name: what delegation calls it and what its node shows',
            placeHolder: 'e.g. Reviewer',
            ignoreFocusOut: true,
            validateInput: (v) => (definitionName().safeParse(v).success ? undefined : 'A name is 1-64 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit.'),
          });
    if (name === undefined) return undefined;
    const parsed = definitionName().parse(name);
    const folder = vscode.workspace.workspaceFolders?.[0];
    const dir = folder ? vscode.Uri.joinPath(folder.uri, '.arbor', 'agents') : vscode.Uri.file(userDefinitionsFolder());
    const file = vscode.Uri.joinPath(dir, definitionFileName(parsed));
    if (!(await exists(file))) {
      await vscode.workspace.fs.createDirectory(dir);
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(definitionTemplate(parsed)));
      log.info(`Wrote a new agent definition: ${file.fsPath}`);
    }
    await vscode.window.showTextDocument(file);
    return file.fsPath;
  } catch (err) {
    reportError(log, 'Could not write the agent definition', err);
    return undefined;
  }
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    // stat fails for a file that is not there: that is the answer.
    return false;
  }
}
