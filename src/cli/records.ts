// The HTTP API's records as the CLI's --json prints them: the API's own serializers, field for
// field, with every amount exact to the nano-USD (DESIGN: the CLI prints money exactly, 9 places).
import { adminAccountViewIn, catalogModelViewIn, grantView, type Grant } from "../core/admin/rules.ts";
import { keyListView } from "../core/keys/rules.ts";
import { exactUsdFormat, type Nanos } from "../core/money.ts";
import { adminOrgViewIn, memberViewIn, membershipViewIn } from "../core/orgs/requests.ts";
import type { ApiKey } from "../core/store.ts";

export const accountRecord = adminAccountViewIn(exactUsdFormat);
export const modelRecord = catalogModelViewIn(exactUsdFormat);
export const orgRecord = adminOrgViewIn(exactUsdFormat);
export const membershipRecord = membershipViewIn(exactUsdFormat);
export const memberRecord = memberViewIn(exactUsdFormat);
export const keyRecord = (key: ApiKey, now: number) => keyListView(key, now, exactUsdFormat);
export const grantRecord = (grant: Grant, balance: Nanos) => grantView(grant, balance, exactUsdFormat);
