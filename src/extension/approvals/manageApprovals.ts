import * as vscode from 'vscode';
import { messageOf } from '../../core';
import { formatApprovalRule, parseApprovalRule, type ApprovalRule, type StoredRuleScope } from '../../core/interaction';
import { RULES_SETTING, type EditorApprovalRuleStore } from './ruleStore';

export const MANAGE_APPROVALS_COMMAND = 'arbor.manageApprovals';
export const REMOVE_RULE_TOOLTIP = 'Remove rule';

const SCOPE_LABEL: Record<ApprovalRule['scope'], string> = {
  workspace: 'this workspace',
  user: 'always (every workspace)',
  setting: `setting arbor.${RULES_SETTING}`,
};

const EMPTY_STATE = 'No approval rules yet';
const EMPTY_STATE_DETAIL = 'When an agent asks, "Allow for this workspace" or "Allow always" adds one; or add one below.';
const LISTED_STATE = 'Remove a rule with its trash button (or select it), or add one';

interface RuleItem extends vscode.QuickPickItem {
  rule?: ApprovalRule;
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
 * removes one (its trash button, or select it and confirm) and adds one (typed, checked, then
 * stored for this workspace or always). The list follows the store as it changes.
 */
export class ManageApprovals implements vscode.Disposable {
  /** The open list (tests read what it shows). */
  current: vscode.QuickPick<RuleItem> | undefined;
  /** The open "remove this rule?" question. */
  confirmation: vscode.QuickPick<vscode.QuickPickItem> | undefined;

  constructor(
    private readonly store: EditorApprovalRuleStore,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  register(): vscode.Disposable {
    return vscode.commands.registerCommand(MANAGE_APPROVALS_COMMAND, () => this.show());
  }

  /** Opens the list and returns; the list stays open until it is dismissed. */
  show(): void {
    this.current?.dispose();
    const picker = vscode.window.createQuickPick<RuleItem>();
    this.current = picker;
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
      picker.items = [
        ...ruleItems,
        ...emptyState,
        { label: '', kind: vscode.QuickPickItemKind.Separator },
        { label: '$(add) Add a rule...', detail: 'For example "command: npm test", "command: npm run *" or "edit: src/**"', command: 'add', alwaysShow: true },
        { label: `$(settings-gear) Open the setting arbor.${RULES_SETTING}`, command: 'settings', alwaysShow: true },
      ];
    };
    refresh();
    const listening = this.store.onDidChange(refresh);
    picker.onDidTriggerItemButton(({ item }) => {
      if (item.rule) void this.remove(item.rule);
    });
    picker.onDidAccept(() => {
      const [item] = picker.activeItems;
      if (!item || item.command === 'none') return;
      picker.hide();
      if (item.command === 'settings') void vscode.commands.executeCommand('workbench.action.openSettings', `arbor.${RULES_SETTING}`);
      else if (item.command === 'add') void this.add();
      else if (item.rule) void this.confirmRemove(item.rule);
    });
    picker.onDidHide(() => {
      listening.dispose();
      picker.dispose();
      if (this.current === picker) this.current = undefined;
    });
    picker.show();
  }

  dispose(): void {
    this.current?.dispose();
    this.confirmation?.dispose();
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

  /** Select a rule, then confirm: removal without the mouse. */
  private confirmRemove(rule: ApprovalRule): Promise<void> {
    const remove = `Remove "${formatApprovalRule(rule)}"`;
    const confirm = vscode.window.createQuickPick();
    this.confirmation = confirm;
    confirm.title = 'Arbor: Approval Rules';
    confirm.placeholder = explain(rule);
    confirm.items = [{ label: remove, description: SCOPE_LABEL[rule.scope] }, { label: 'Keep it' }];
    return new Promise<void>((resolve) => {
      confirm.onDidAccept(() => {
        const chosen = confirm.activeItems[0]?.label;
        confirm.hide();
        if (chosen === remove) void this.remove(rule).then(resolve);
        else resolve();
      });
      confirm.onDidHide(() => {
        confirm.dispose();
        if (this.confirmation === confirm) this.confirmation = undefined;
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
