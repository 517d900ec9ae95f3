import { expect, test } from "bun:test";
import { invitationMail, plainName } from "../../src/core/orgs/requests.ts";

test.each([
  ["Acme", "Acme"],
  ["Acme Inc.", "Acme Inc."],
  ["Acme, Inc. . Team 2", "Acme, Inc. . Team 2"],
  ["acme.com", "acme[.]com"],
  ["Go to https://pay.example.com/login?x=1", "Go to https[:]//pay[.]example[.]com/login?x=1"],
  ["www.pay.example", "www[.]pay[.]example"],
  ["help@pay.example", "help@pay[.]example"],
  ["10.0.0.1", "10[.]0[.]0[.]1"],
  ["pay\uFF0Eexample", "pay[.]example"],
  ["pay\u3002example", "pay[.]example"],
  ["pay\u2024example", "pay[.]example"],
  ["bänk.example", "bänk[.]example"],
  ["Acme \u202Emoc.elpmaxe", "Acme moc[.]elpmaxe"],
  ["a\u200B.\u200Bexample", "a[.]example"],
])("the organization name %p is shown as %p", (name, shown) => {
  expect(plainName(name)).toBe(shown);
});

test("the invitation e-mail quotes the name, says who chose it, and keeps it out of the subject", () => {
  const mail = invitationMail("https://gw.test/dashboard", "Log in at https://pay.example", "boss@acme.test", "admin", "TOKEN");
  expect(mail).toEqual({
    subject: "You are invited to join an organization on the gateway",
    text: [
      'boss@acme.test invited you to join the organization "Log in at https[:]//pay[.]example" as an admin.',
      "(The organization's name was chosen by whoever invited you; the gateway has not checked it,",
      "and it is not a link: dots in it are written [.].) Accept at:",
      "",
      "https://gw.test/dashboard/invitations/accept?token=TOKEN",
      "",
      "The link works once, for 7 days, and only when you are signed in with this e-mail address.",
      "If you do not know the sender, ignore this e-mail.",
      "",
    ].join("\n"),
  });
});
