import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import { definitionFileName, definitionName, definitionTemplate, type AgentDefinition } from '../../core/definitions';
import { reportError } from '../errorReporting';
import { userDefinitionsFolder } from './definitionFiles';

export const NEW_DEFINITION_COMMAND = 'arbor.newAgentDefinition';

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
export function registerDefinitionCommands(log: vscode.LogOutputChannel): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(NEW_DEFINITION_COMMAND, async (nameArgument?: unknown): Promise<string | undefined> => {
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
    }),
  ];
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
