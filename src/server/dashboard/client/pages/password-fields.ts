import { field, type Field } from "../fields.ts";

/** The server's rule: 10 to 200 characters. */
export const PASSWORD_MIN_LENGTH = 10;
const PASSWORD_MAX_LENGTH = 200;

export const passwordRule = (v: string): string | null => {
  if (v.length < PASSWORD_MIN_LENGTH) return `Password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  return v.length > PASSWORD_MAX_LENGTH ? `Password must be at most ${PASSWORD_MAX_LENGTH} characters` : null;
};

/** A new password typed twice. `name` is the API's field, so a server refusal lands beside it. */
export function newPasswordFields(name: string, label: string): { fields: Field[]; value: () => string } {
  const password = field({
    name, label, type: "password", autocomplete: "new-password",
    hint: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`, validate: passwordRule,
  });
  const again = field({
    name: "repeat", label: "Repeat the new password", type: "password", autocomplete: "new-password",
    validate: (v) => (v === password.value() ? null : "The two passwords differ"),
  });
  return { fields: [password, again], value: () => password.value() };
}
