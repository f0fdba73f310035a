import * as vscode from 'vscode';
import * as z from 'zod';
import {
  formatApprovalRule,
  parseApprovalRule,
  type ApprovalRule,
  type ApprovalRulePattern,
  type ApprovalRuleStore,
  type StoredRuleScope,
} from '../../core/interaction';

/** The setting that holds rules the user writes by hand ("command: npm test"). */
export const RULES_SETTING = 'approvals.rules';
/** Where "Allow for this workspace" (workspaceState) and "Allow always" (globalState) keep rules. */
const STATE_KEY = 'arbor.approvals.rules';

const storedRules = z.array(z.string());

/**
 * Approval rules from three places: the user setting `arbor.approvals.rules`, this workspace's
 * state ("Allow for this workspace") and the user's global state ("Allow always"). Everything
 * read is parsed: an invalid setting entry is reported by its text and ignored; a damaged
 * stored list is ignored whole. The setting is application-scoped, so a folder you open cannot
 * grant itself permissions through its .vscode/settings.json.
 */
export class EditorApprovalRuleStore implements ApprovalRuleStore, vscode.Disposable {
  private settingRules: ApprovalRule[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly context: Pick<vscode.ExtensionContext, 'workspaceState' | 'globalState'>,
    /** Told about each invalid entry of the setting, by its text. */
    private readonly onProblem: (message: string) => void,
  ) {
    this.readSetting();
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(`arbor.${RULES_SETTING}`)) return;
      this.readSetting();
      this.changed.fire();
    });
  }

  rules(): readonly ApprovalRule[] {
    return [...this.settingRules, ...this.stored('workspace'), ...this.stored('user')];
  }

  async remember(rule: ApprovalRulePattern, scope: StoredRuleScope): Promise<void> {
    const text = formatApprovalRule(rule);
    const current = this.storedTexts(scope);
    if (current.includes(text)) return;
    await this.memento(scope).update(STATE_KEY, [...current, text]);
    this.changed.fire();
  }

  /** Revoke a rule where it lives; a setting rule is removed from the user settings. */
  async remove(rule: ApprovalRule): Promise<void> {
    const text = formatApprovalRule(rule);
    if (rule.scope === 'setting') {
      const config = vscode.workspace.getConfiguration('arbor');
      const current = config.inspect<unknown>(RULES_SETTING)?.globalValue;
      const list = storedRules.safeParse(current);
      if (!list.success) return;
      const kept = list.data.filter((entry) => {
        const parsed = parseApprovalRule(entry);
        return !(parsed.ok && formatApprovalRule(parsed.rule) === text);
      });
      await config.update(RULES_SETTING, kept.length ? kept : undefined, vscode.ConfigurationTarget.Global);
      this.readSetting();
    } else {
      await this.memento(rule.scope).update(
        STATE_KEY,
        this.storedTexts(rule.scope).filter((entry) => entry !== text),
      );
    }
    this.changed.fire();
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private memento(scope: StoredRuleScope): vscode.Memento {
    return scope === 'workspace' ? this.context.workspaceState : this.context.globalState;
  }

  private storedTexts(scope: StoredRuleScope): string[] {
    const parsed = storedRules.safeParse(this.memento(scope).get<unknown>(STATE_KEY, []));
    return parsed.success ? parsed.data : [];
  }

  private stored(scope: StoredRuleScope): ApprovalRule[] {
    return this.storedTexts(scope).flatMap((text) => {
      const parsed = parseApprovalRule(text);
      return parsed.ok ? [{ ...parsed.rule, scope }] : [];
    });
  }

  private readSetting(): void {
    const raw = vscode.workspace.getConfiguration('arbor').get<unknown>(RULES_SETTING, []);
    const list = z.array(z.unknown()).safeParse(raw ?? []);
    const rules: ApprovalRule[] = [];
    if (!list.success) {
      this.onProblem(`arbor.${RULES_SETTING} must be a list of rules such as "command: npm test"; ignoring it.`);
    } else {
      for (const entry of list.data) {
        const parsed = parseApprovalRule(entry);
        if (parsed.ok) rules.push({ ...parsed.rule, scope: 'setting' });
        else this.onProblem(`arbor.${RULES_SETTING}: ignoring the rule ${JSON.stringify(entry)}: ${parsed.message}.`);
      }
    }
    this.settingRules = rules;
  }
}
