// DESIGN's free-credits row: granted when the account's e-mail is verified (through the real
// e-mail's link), once per normalized e-mail, to at most FREE_CREDITS_PER_IP_PER_DAY accounts
// of one sign-up IP per UTC day.
import { afterAll, expect, test } from "bun:test";
import { verificationLink } from "../../src/core/accounts/sign-in.ts";
import { nanos } from "../../src/core/money.ts";
import { exec } from "../../src/db/sql.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { readJson } from "../support/http.ts";
import { verifyByMail } from "../support/mail.ts";
import { signUpUser, uniqueEmail } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());
let n = 0;
const ip = () => `203.0.113.${++n}`;

describeEachDialect("free credits, granted at verification", (dialect) => {
  const gateway = useGateway(dialect, { TRUST_PROXY: "1", FREE_CREDITS_PER_IP_PER_DAY: "2", SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10" });
  /** The balance after signing up from `from` and following the verification link. */
  const balanceOf = async (email: string, from: string) => {
    const user = await signUpUser(gateway().url, email, { "x-forwarded-for": from });
    expect((await readJson(await user.send("GET", "/account"))).balanceUsd).toBe("0.000000");
    expect((await verifyByMail(smtp, gateway().url, email)).status).toBe(200);
    return (await readJson(await user.send("GET", "/account"))).balanceUsd;
  };

  test("go once to a Gmail inbox, however its address is spelled", async () => {
    const local = `free.${process.pid}.${dialect}`;
    expect(await balanceOf(`${local}@gmail.com`, ip())).toBe("5.000000");
    expect(await balanceOf(`${local.replaceAll(".", "")}+promo@googlemail.com`, ip())).toBe("0.000000");
    expect(await balanceOf(`${local}@example.com`, ip())).toBe("5.000000");
  });

  test("go once per confusable skeleton: a look-alike or +tag of a credited address gets none", async () => {
    const email = `alice.${process.pid}.${dialect}@example.com`;
    expect(await balanceOf(email, ip())).toBe("5.000000");
    // Sign-up refuses these now (accounts.look-alike.security.test.ts); accounts made before the
    // rule have no key of their own, and their claim is judged by the same key.
    for (const [i, lookAlike] of [email.replace("@", "+promo@"), email.replace("alice", "al\u0131ce")].entries()) {
      const id = `legacy-${dialect}-${process.pid}-${i}`;
      await gateway().db.run(exec("INSERT INTO accounts (id, email, created_at, signup_ip) VALUES (?, ?, ?, ?)", id, lookAlike, Date.now(), ip()));
      expect(await gateway().store.queueVerification(id, verificationLink(gateway().config.dashboardUrl, Date.now()), Date.now())).toBe(true);
      expect((await verifyByMail(smtp, gateway().url, lookAlike)).status).toBe(200);
      expect((await gateway().store.getAccount(id))!.balance).toBe(nanos(0n));
    }
  });

  test("go to at most FREE_CREDITS_PER_IP_PER_DAY accounts signed up from one IP, whoever verifies them", async () => {
    const shared = ip();
    const balances = [];
    for (let i = 0; i < 3; i++) balances.push(await balanceOf(uniqueEmail("same-ip"), shared));
    expect(balances).toEqual(["5.000000", "5.000000", "0.000000"]);
    expect(await balanceOf(uniqueEmail("other-ip"), ip())).toBe("5.000000");
  });

  test("are one ledger grant, so the balance equals the ledger", async () => {
    const email = uniqueEmail();
    await balanceOf(email, ip());
    const account = (await gateway().store.findAccountByEmail(email))!;
    expect(await gateway().store.ledgerSum(account.id)).toBe(account.balance);
    expect(account.balance).toBe(5_000_000_000n as typeof account.balance);
  });
});
