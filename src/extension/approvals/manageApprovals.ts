import * as vscode from 'vscode';
import { messageOf } from '../../core';
import { formatApprovalRule, parseApprovalRule, type ApprovalGrant, type GrantList, type ApprovalRule, type StoredRuleScope } from '../../core/interaction';
import { grantItemOf, REVOKE_GRANT_TOOLTIP } from './grantItems';
import { RULES_SETTING, type EditorApprovalRuleStore } from './ruleStore';

const REMOVE_RULE_TOOLTIP = 'Remove rule';

const SCOPE_LABEL: Record<ApprovalRule['scope'], string> = {
  workspace: 'this workspace',
  user: 'always (every workspace)',
  setting: `setting arbor.${RULES_SETTING}`,
};

const EMPTY_STATE = 'No approval rules yet';
const EMPTY_STATE_DETAIL = 'When an agent asks, "Allow for this workspace" or "Allow always" adds one; or add one below.';
const LISTED_STATE = 'Remove a rule with its trash button (or select it), or add one';

/** What Manage Approvals has open: the list of rules, and the question that confirms removing one. */
export interface OpenApprovals {
  list?: vscode.QuickPick<RuleItem>;
  confirmation?: vscode.QuickPick<vscode.QuickPickItem>;
}

export interface RuleItem extends vscode.QuickPickItem {
  rule?: ApprovalRule;
  /** A live grant ("Allow for this agent", "... and the agents it starts"), listed beside the rules. */
  grant?: ApprovalGrant;
  command?: 'add' | 'settings' | 'none';
}

/** What a rule lets agents do, in words. */
function explain(rule: ApprovalRule): string {
  const everywhere = 'without asking, in unattended runs and subagents too';
  switch (rule.kind) {
    case 'edit':
      return `Edits to files matching ${rule.pattern} ${everywhere}`;
    case 'command':
      if (rule.pattern === '*') return `Any command ${everywhere}`;
      if (rule.pattern.endsWith(' *')) return `"${rule.pattern.slice(0, -2)}" with plain arguments (no ; & | > $ or backticks) ${everywhere}`;
      return `Exactly "${rule.pattern}" ${everywhere}`;
    case 'tool':
      return `Tools from other extensions named ${rule.pattern} ${everywhere}`;
  }
}

/**
 * Arbor: Manage Approvals...: one quick pick that lists every rule in force with where it lives,
 * then the live agent and branch grants (what a person allowed an agent, or an agent and the
 * agents it starts, until it ends), removes a rule or revokes a grant (its trash button, or
 * select it and confirm) and adds a rule (typed, checked, then stored for this workspace or
 * always). The list follows the store and the grants as they change. The command is
 * registered at start; this part loads when it first runs (src/extension/parts.ts).
 */
export class ManageApprovals implements vscode.Disposable {
  /** The open list. */
  private current: vscode.QuickPick<RuleItem> | undefined;
  /** The open "remove this rule?" question. */
  private confirmation: vscode.QuickPick<vscode.QuickPickItem> | undefined;
  private readonly changed = new vscode.EventEmitter<OpenApprovals>();
  /** Fires with what is open whenever the list or a "remove this rule?" question opens or closes. */
  readonly onDidChangeOpen = this.changed.event;

  constructor(
    private readonly store: EditorApprovalRuleStore,
    private readonly log: vscode.LogOutputChannel,
    /** The runtime's live grants; without them only rules are listed. */
    private readonly grants?: GrantList,
  ) {}

  /** Opens the list and returns; the list stays open until it is dismissed. */
  show(): void {
    this.current?.dispose();
    const picker = vscode.window.createQuickPick<RuleItem>();
    this.current = picker;
    this.fireChanged();
    picker.title = 'Arbor: Approval Rules';
    picker.matchOnDescription = true;
    picker.matchOnDetail = true;
    const refresh = (): void => {
      const rules = this.store.rules();
      picker.placeholder = rules.length ? LISTED_STATE : EMPTY_STATE;
      const ruleItems: RuleItem[] = rules.map((rule) => ({
        label: formatApprovalRule(rule),
        description: SCOPE_LABEL[rule.scope],
        detail: explain(rule),
        rule,
        buttons: [{ iconPath: new vscode.ThemeIcon('trash'), tooltip: REMOVE_RULE_TOOLTIP }],
      }));
      const emptyState: RuleItem[] = rules.length ? [] : [{ label: `$(info) ${EMPTY_STATE}`, detail: EMPTY_STATE_DETAIL, command: 'none', alwaysShow: true }];
      const grants = this.grants?.grants() ?? [];
      const grantItems: RuleItem[] = grants.length
        ? [{ label: 'Granted to live agents', kind: vscode.QuickPickItemKind.Separator }, ...grants.map((grant) => ({ ...grantItemOf(grant), grant, buttons: [{ iconPath: new vscode.ThemeIcon('trash'), tooltip: REVOKE_GRANT_TOOLTIP }] }))]
        : [];
      picker.items = [
        ...ruleItems,
        ...emptyState,
        ...grantItems,
        { label: '', kind: vscode.QuickPickItemKind.Separator },
        { label: '$(add) Add a rule...', detail: 'For example "command: npm test", "command: npm run *" or "edit: src/**"', command: 'add', alwaysShow: true },
        { label: `$(settings-gear) Open the setting arbor.${RULES_SETTING}`, command: 'settings', alwaysShow: true },
      ];
    };
    refresh();
    const listening = this.store.onDidChange(refresh);
    const listeningToGrants = this.grants?.onDidChange(refresh);
    picker.onDidTriggerItemButton(({ item }) => {
      if (item.rule) void this.remove(item.rule);
      else if (item.grant) this.revoke(item.grant);
    });
    picker.onDidAccept(() => {
      const [item] = picker.activeItems;
      if (!item || item.command === 'none') return;
      picker.hide();
      if (item.command === 'settings') void vscode.commands.executeCommand('workbench.action.openSettings', `arbor.${RULES_SETTING}`);
      else if (item.command === 'add') void this.add();
      else if (item.rule) void this.confirmRemove(item.rule);
      else if (item.grant) void this.confirmRevoke(item.grant);
    });
    picker.onDidHide(() => {
      listening.dispose();
      listeningToGrants?.dispose();
      picker.dispose();
      if (this.current === picker) {
        this.current = undefined;
        this.fireChanged();
      }
    });
    picker.show();
  }

  dispose(): void {
    this.current?.dispose();
    this.confirmation?.dispose();
    this.changed.dispose();
  }

  private fireChanged(): void {
    this.changed.fire({ list: this.current, confirmation: this.confirmation });
  }

  private async remove(rule: ApprovalRule): Promise<void> {
    try {
      await this.store.remove(rule);
      this.log.info(`Approval rule removed (${SCOPE_LABEL[rule.scope]}): ${formatApprovalRule(rule)}`);
    } catch (err) {
      const message = `Could not remove the rule "${formatApprovalRule(rule)}": ${messageOf(err)}`;
      this.log.error(message);
      void vscode.window.showErrorMessage(`Arbor: ${message}`);
    }
  }

  private revoke(grant: ApprovalGrant): void {
    if (this.grants?.revoke(grant.id)) this.log.info(`Approval grant revoked: ${grantItemOf(grant).label} (${grant.path})`);
  }

  /** Select a rule, then confirm: removal without the mouse. */
  private confirmRemove(rule: ApprovalRule): Promise<void> {
    return this.confirm(`Remove "${formatApprovalRule(rule)}"`, SCOPE_LABEL[rule.scope], explain(rule), () => this.remove(rule));
  }

  /** Select a grant, then confirm: revoking without the mouse. */
  private confirmRevoke(grant: ApprovalGrant): Promise<void> {
    const item = grantItemOf(grant);
    return this.confirm(`Revoke "${item.label}"`, item.description, item.detail, () => Promise.resolve(this.revoke(grant)));
  }

  private confirm(question: string, description: string, placeholder: string, act: () => Promise<void>): Promise<void> {
    const remove = question;
    const confirm = vscode.window.createQuickPick();
    this.confirmation = confirm;
    this.fireChanged();
    confirm.title = 'Arbor: Approval Rules';
    confirm.placeholder = placeholder;
    confirm.items = [{ label: remove, description }, { label: 'Keep it' }];
    return new Promise<void>((resolve) => {
      confirm.onDidAccept(() => {
        const chosen = confirm.activeItems[0]?.label;
        confirm.hide();
        if (chosen === remove) void act().then(resolve);
        else resolve();
      });
      confirm.onDidHide(() => {
        confirm.dispose();
        if (this.confirmation === confirm) {
          this.confirmation = undefined;
          this.fireChanged();
        }
        resolve();
      });
      confirm.show();
    });
  }

  private async add(): Promise<void> {
    const text = await vscode.window.showInputBox({
      title: 'Arbor: Add an Approval Rule',
      prompt: 'Agents may then do this without asking, in unattended runs and subagents too.',
      placeHolder: 'command: npm test    command: npm run *    edit: src/**    tool: mcp_github_*',
      validateInput: (value) => {
        const parsed = parseApprovalRule(value);
        return parsed.ok ? undefined : parsed.message;
      },
    });
    if (text === undefined) return;
    const parsed = parseApprovalRule(text);
    if (!parsed.ok) return;
    const scopes: Array<vscode.QuickPickItem & { scope: StoredRuleScope }> = [
      { label: 'This workspace', description: 'kept with this workspace', scope: 'workspace' },
      { label: 'Always', description: 'every workspace you open', scope: 'user' },
    ];
    const where = await vscode.window.showQuickPick(scopes, { title: `Arbor: Where should "${formatApprovalRule(parsed.rule)}" apply?` });
    if (!where) return;
    await this.store.remember(parsed.rule, where.scope);
    this.log.info(`Approval rule added (${SCOPE_LABEL[where.scope]}): ${formatApprovalRule(parsed.rule)}`);
  }
}
