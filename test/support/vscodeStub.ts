// Just enough of the 'vscode' module for the Agents tree provider and the commands on agents to
// run in plain Node, so a unit suite or a benchmark can drive them without an editor. Importing
// this file installs it (before the provider is first required); `vscodeStub` is the module
// itself, for a suite to answer the quick picks and reach the registered commands.
import Module from 'node:module';

class EventEmitter<T> {
  private listeners: Array<(e: T) => void> = [];
  readonly event = (listener: (e: T) => void): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const listener of this.listeners) listener(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

class TreeItem {
  id?: string;
  description?: string;
  iconPath?: unknown;
  contextValue?: string;
  command?: unknown;
  tooltip?: unknown;
  resourceUri?: unknown;
  accessibilityInformation?: unknown;
  constructor(
    public label: string,
    public collapsibleState: number,
  ) {}
}

type Command = (...args: unknown[]) => unknown;

export const vscodeStub = {
  EventEmitter,
  TreeItem,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ThemeIcon: class {
    constructor(public id: string) {}
  },
  ThemeColor: class {
    constructor(public id: string) {}
  },
  MarkdownString: class {
    constructor(public value: string) {}
    appendMarkdown(text: string): this {
      this.value += text;
      return this;
    }
  },
  Uri: { file: (fsPath: string) => ({ fsPath, scheme: 'file' }) },
  // Settings read as their defaults; no setting ever changes.
  workspace: {
    getConfiguration: () => ({ get: <T>(_key: string, fallback: T): T => fallback }),
    onDidChangeConfiguration: () => ({ dispose: () => undefined }),
  },
  /** Every command registered, by id. */
  registered: new Map<string, Command>(),
  commands: {
    registerCommand: (id: string, command: Command) => {
      vscodeStub.registered.set(id, command);
      return { dispose: () => vscodeStub.registered.delete(id) };
    },
    executeCommand: (id: string, ...args: unknown[]) => Promise.resolve(vscodeStub.registered.get(id)?.(...args)),
  },
  // Every prompt is dismissed unless a suite answers it.
  window: {
    showQuickPick: (_items: unknown, _options?: unknown): Promise<unknown> => Promise.resolve(undefined),
    showInputBox: (_options?: unknown): Promise<string | undefined> => Promise.resolve(undefined),
    showInformationMessage: (..._args: unknown[]): Promise<undefined> => Promise.resolve(undefined),
    showErrorMessage: (..._args: unknown[]): Promise<undefined> => Promise.resolve(undefined),
  },
};

/** Node's module loader, as far as this file reaches into it. */
interface Loader {
  _load(request: string, ...rest: unknown[]): unknown;
}
const loader: Loader = Module as typeof Module & Loader;
const load = loader._load.bind(loader);
loader._load = (request: string, ...rest: unknown[]): unknown => (request === 'vscode' ? vscodeStub : load(request, ...rest));
