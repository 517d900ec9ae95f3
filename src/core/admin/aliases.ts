// The console's model aliases (`/admin/aliases`): made, changed and removed by an operator, each
// change audited as a catalog edit (`model_updated`) on the operator's own account.
import { checkAlias, type ModelAlias } from "../aliases.ts";
import type { AuditStore } from "../accounts/audit.ts";
import { AppError } from "../errors.ts";
import type { ModelStore } from "../store.ts";
import { byOperator, type OperatorAct } from "./actions.ts";

type AliasPorts = { store: ModelStore & AuditStore };

/** `PUT /admin/aliases/{name}` `{models: [id, …]}`: the alias made, or its models replaced. */
export async function saveAliasAsOperator(ports: AliasPorts, act: OperatorAct, name: string, body: Record<string, unknown>): Promise<ModelAlias> {
  const models = body.models;
  if (!Array.isArray(models) || models.some((id) => typeof id !== "string")) throw new AppError("invalid_request_error", "models must be a list of model IDs");
  const checked = checkAlias(name, models as string[], await ports.store.listModels({ includeDisabled: true }));
  if ("reason" in checked) throw new AppError("invalid_request_error", checked.reason);
  await ports.store.saveAlias(checked.alias, act.now);
  await ports.store.recordAudit({
    accountId: act.operator.id, type: "model_updated", ip: act.ip, at: act.now,
    detail: `alias ${name}: ${checked.alias.models.join(", ")} ${byOperator(act)}`,
  });
  return checked.alias;
}

/** `DELETE /admin/aliases/{name}`. */
export async function removeAliasAsOperator(ports: AliasPorts, act: OperatorAct, name: string): Promise<{ name: string; removed: true }> {
  if (!(await ports.store.removeAlias(name))) throw new AppError("not_found", "Alias not found");
  await ports.store.recordAudit({ accountId: act.operator.id, type: "model_updated", ip: act.ip, at: act.now, detail: `alias ${name} removed ${byOperator(act)}` });
  return { name, removed: true };
}
