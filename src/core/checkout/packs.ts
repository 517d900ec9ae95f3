import { parseUsd, type Nanos } from "../money.ts";

export const PACK_IDS = ["builder", "pro", "team", "scale"] as const;
export type PackId = (typeof PACK_IDS)[number];

export interface CreditPack {
  id: PackId;
  name: string;
  priceUsd: string;
  credits: Nanos;
}

const pack = (id: PackId, name: string, priceUsd: string, creditsUsd: string): CreditPack => ({
  id, name, priceUsd, credits: parseUsd(creditsUsd) as Nanos,
});

/** The spec's credit packs: what a buyer pays, and the credits that buys. */
export const CREDIT_PACKS: Record<PackId, CreditPack> = {
  builder: pack("builder", "Builder", "25", "30"),
  pro: pack("pro", "Pro", "50", "60"),
  team: pack("team", "Team", "100", "120"),
  scale: pack("scale", "Scale", "200", "250"),
};

export const isPackId = (value: unknown): value is PackId =>
  typeof value === "string" && (PACK_IDS as readonly string[]).includes(value);
