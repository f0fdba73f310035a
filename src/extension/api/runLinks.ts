import * as vscode from 'vscode';
import type { Agent } from '../../core/agents';
import { parsePublicRunRequestFrom, parseRunLinkQuery, type PublicRunRequest } from '../../core/interaction';
import { reportError } from '../errorReporting';
import type { ReviewPreviews } from '../questions/reviewPreview';

/**
 * Links such as `vscode://arbor.arbor/run?prompt=...&label=...` (values encoded with
 * encodeURIComponent) start an interactive agent once the human confirms. A link is a public entry point: it cannot choose the interaction mode or
 * disable clarification; such parameters are stripped and the log says so.
 */
export class RunLinkHandler implements vscode.UriHandler {
  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly startRun: (request: PublicRunRequest) => Agent,
    /** Where the whole prompt is shown before the human can start it. */
    private readonly previews?: ReviewPreviews,
  ) {}

  handleUri(uri: vscode.Uri): Promise<void> {
    return this.open(uri).then(() => undefined);
  }

  /** Handles one link; resolves with the started agent, or undefined when nothing started. */
  async open(uri: vscode.Uri): Promise<Agent | undefined> {
    if (uri.path !== '/run') {
      reportError(this.log, `Unknown Arbor link ${uri.path}`, new Error('Arbor links look like vscode://arbor.arbor/run?prompt=...'));
      return undefined;
    }
    let request: PublicRunRequest;
    try {
      // uri.query is decoded already; the query reader never decodes it a second time.
      const { params, ignored } = parseRunLinkQuery(uri.query);
      if (ignored) this.log.warn(`An Arbor link carried parameters Arbor does not know; they were ignored: ${ignored.slice(0, 200)}`);
      request = parsePublicRunRequestFrom('uri', params, {
        onStripped: (keys) => this.log.warn(`An Arbor link tried to set ${keys.join(', ')}; links cannot choose how a run interacts, so they were ignored.`),
      });
    } catch (err) {
      reportError(this.log, 'The Arbor link is invalid', err);
      return undefined;
    }
    const preview = request.prompt.length > 200 ? `${request.prompt.slice(0, 199)}…` : request.prompt;
    const whole = await this.previews?.open(
      'Link run request',
      `A link asks Arbor to start an interactive agent${request.label ? ` labelled "${request.label}"` : ''} with the task below (${request.prompt.length} characters). Read all of it, then answer in the prompt.`,
      request.prompt,
    );
    const choice = await vscode.window.showQuickPick(
      [
        { label: 'Start agent', description: request.label ?? '', detail: preview, start: true },
        { label: 'Cancel', start: false },
      ],
      { title: 'A link asks Arbor to start an agent', placeHolder: 'Start an interactive agent with this task?', ignoreFocusOut: true },
    );
    void whole?.close();
    if (!choice?.start) return undefined;
    return this.startRun(request);
  }
}
