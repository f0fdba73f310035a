// Just enough of the 'vscode' module for the Agents tree provider to run in plain Node, so a
// benchmark can drive it without an editor. Installed before the provider is first required.
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
  accessibilityInformation?: unknown;
  constructor(
    public label: string,
    public collapsibleState: number,
  ) {}
}

const stub = {
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
};

/** Node's module loader, as far as this file reaches into it. */
interface Loader {
  _load(request: string, ...rest: unknown[]): unknown;
}
const loader: Loader = Module as typeof Module & Loader;
const load = loader._load.bind(loader);
loader._load = (request: string, ...rest: unknown[]): unknown => (request === 'vscode' ? stub : load(request, ...rest));
