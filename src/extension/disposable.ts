import type * as vscode from 'vscode';

/**
 * An owner of listeners, watchers and other disposables, as vscode-pull-request-github's
 * `Disposable` (src/common/lifecycle.ts): each is handed to `_register` on the line that creates
 * it, so who owns it is visible there. `dispose` releases them once, in the order they were
 * registered; one registered after that is released at once, so nothing outlives its owner.
 */
export abstract class Disposable implements vscode.Disposable {
  private readonly _disposables: vscode.Disposable[] = [];
  private _isDisposed = false;

  /** Owns `value` from now on and hands it back. */
  protected _register<T extends vscode.Disposable>(value: T): T {
    if (this._isDisposed) value.dispose();
    else this._disposables.push(value);
    return value;
  }

  dispose(): void {
    this._isDisposed = true;
    for (const value of this._disposables.splice(0)) value.dispose();
  }
}
