import { ApiError } from "./api.ts";
import { h, uniqueId } from "./dom.ts";

interface FieldSpec {
  /** The API's name for the value: a server error that starts with it is shown beside this field. */
  name: string;
  label: string;
  type?: "text" | "email" | "password" | "datetime-local";
  value?: string;
  hint?: string;
  autocomplete?: string;
  inputMode?: "decimal" | "numeric";
  maxLength?: number;
  /** A short, fixed-length value (a 6-digit code; a recovery code) gets an input of its size, not the row's width. */
  size?: "code" | "recovery-code";
  /** The page's own check, for a quick answer; the server checks again and has the last word. */
  validate?: (value: string) => string | null;
}

export interface Field {
  spec: FieldSpec;
  input: HTMLInputElement | HTMLSelectElement;
  element: HTMLElement;
  /** The input's value, trimmed (passwords as typed). */
  value(): string;
  showError(message: string | null): void;
}

/** A labelled input with its hint and an error message tied to it for screen readers. */
export function field(spec: FieldSpec): Field {
  const id = uniqueId(`field-${spec.name}`);
  const hint = spec.hint ? h("p", { class: "hint", id: `${id}-hint` }, spec.hint) : null;
  const error = h("p", { class: "field-error", id: `${id}-error`, hidden: true });
  const input = h("input", {
    id, name: spec.name, type: spec.type ?? "text", value: spec.value, autocomplete: spec.autocomplete ?? "off",
    inputmode: spec.inputMode, maxlength: spec.maxLength, class: spec.size ? `size-${spec.size}` : undefined, "aria-describedby": [hint?.id, error.id].filter(Boolean).join(" "),
  });
  return {
    spec,
    input,
    // Three parts, each on its own track of the row (styles.css): hints of different lengths and an
    // error under one field leave every input of the row on one line.
    element: h("div", { class: "field" }, h("div", { class: "field-head" }, h("label", { for: id }, spec.label), hint), input, error),
    value: () => (spec.type === "password" ? input.value : input.value.trim()),
    showError(message) {
      error.textContent = message ?? "";
      error.hidden = message === null;
      if (message === null) input.removeAttribute("aria-invalid");
      else input.setAttribute("aria-invalid", "true");
    },
  };
}

/** The message under a control, tied to it for screen readers, and how to show or clear it. */
export function errorSlot(id: string, control: HTMLElement): { element: HTMLElement; show(message: string | null): void } {
  const element = h("p", { class: "field-error", id: `${id}-error`, hidden: true });
  return {
    element,
    show(message) {
      element.textContent = message ?? "";
      element.hidden = message === null;
      if (message === null) control.removeAttribute("aria-invalid");
      else control.setAttribute("aria-invalid", "true");
    },
  };
}

/** A labelled choice among fixed options (`[value, text]`), laid out as a field. */
export function choice(spec: Pick<FieldSpec, "name" | "label" | "hint">, options: [string, string][], selected?: string): Field {
  const id = uniqueId(`field-${spec.name}`);
  const hint = spec.hint ? h("p", { class: "hint", id: `${id}-hint` }, spec.hint) : null;
  const input = h("select", { id, name: spec.name, "aria-describedby": [hint?.id, `${id}-error`].filter(Boolean).join(" ") },
    options.map(([value, text]) => h("option", { value, selected: value === selected }, text)));
  const error = errorSlot(id, input);
  return {
    spec, input, value: () => input.value, showError: error.show,
    element: h("div", { class: "field" }, h("div", { class: "field-head" }, h("label", { for: id }, spec.label), hint), input, error.element),
  };
}

/** A checkbox with its label beside it; its value is "true" when ticked, "" when not. */
export function checkbox(spec: Pick<FieldSpec, "name" | "label" | "hint">): Field & { input: HTMLInputElement } {
  const id = uniqueId(`field-${spec.name}`);
  const hint = spec.hint ? h("p", { class: "hint", id: `${id}-hint` }, spec.hint) : null;
  const input = h("input", { id, name: spec.name, type: "checkbox", "aria-describedby": [hint?.id, `${id}-error`].filter(Boolean).join(" ") });
  const error = errorSlot(id, input);
  return {
    spec, input, value: () => (input.checked ? "true" : ""), showError: error.show,
    element: h("div", { class: "field checkbox" }, h("div", { class: "field-head" }, h("label", { for: id }, input, ` ${spec.label}`), hint), error.element),
  };
}

/** The field a server message is about: messages start with the field's API name ("limit must be…"). */
function fieldOf(fields: Field[], message: string): Field | undefined {
  const first = message.split(" ", 1)[0]?.toLowerCase();
  return fields.find((f) => f.spec.name.toLowerCase() === first);
}

interface FormOptions {
  fields: Field[];
  submitLabel: string;
  /** Sends the form; resolves to a message announcing success, if any. */
  onSubmit: () => Promise<string | void>;
  /** Buttons beside the submit button, such as Cancel. */
  actions?: Node[];
  /** Names the form for assistive technology: the id of its heading. */
  labelledBy?: string;
}

/**
 * A form that checks its fields in the page, then sends, and shows a server error beside the
 * field it concerns (with the field's label in place of its API name) or, failing that, above
 * the buttons. The first field in error takes the focus.
 */
export function form(options: FormOptions): HTMLFormElement {
  const { fields } = options;
  const submit = h("button", { type: "submit", class: "button" }, options.submitLabel);
  const status = h("div", { class: "form-status", "aria-live": "polite" });
  const element = h("form", { novalidate: true, "aria-labelledby": options.labelledBy },
    h("div", { class: "fields" }, fields.map((f) => f.element)),
    status,
    h("div", { class: "actions" }, submit, options.actions ?? []),
  );

  const report = (error: unknown) => {
    const message = error instanceof ApiError ? error.message : "Something went wrong. Please try again.";
    const target = fieldOf(fields, message);
    if (target) {
      target.showError(target.spec.label + message.slice(target.spec.name.length));
      target.input.focus();
    } else {
      status.replaceChildren(h("p", { class: "notice error", role: "alert" }, message));
    }
  };

  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.replaceChildren();
    const invalid = fields.filter((f) => {
      const message = f.spec.validate?.(f.value()) ?? null;
      f.showError(message);
      return message !== null;
    });
    if (invalid.length > 0) {
      invalid[0]?.input.focus();
      return;
    }
    submit.disabled = true;
    element.setAttribute("aria-busy", "true");
    try {
      const done = await options.onSubmit();
      if (done) status.replaceChildren(h("p", { class: "notice success", role: "status" }, done));
    } catch (error) {
      report(error);
    } finally {
      submit.disabled = false;
      element.removeAttribute("aria-busy");
    }
  });
  return element;
}

// Checks shared by the pages. Ranges are compared as numbers here only to answer quickly; the
// server parses the exact decimal and may still refuse one (too many decimal places).

const DECIMAL = /^\d+(\.\d+)?$/;

/** Empty, or a decimal within [min, max] (or above min when `aboveMin`). */
export const optionalAmount = (label: string, range: { min: number; max: number; aboveMin?: boolean }) =>
  (value: string): string | null => {
    if (value === "") return null;
    const n = DECIMAL.test(value) ? Number(value) : Number.NaN;
    const low = range.aboveMin ? n > range.min : n >= range.min;
    if (low && n <= range.max) return null;
    return range.aboveMin
      ? `${label} must be a number above ${range.min} and at most ${range.max.toLocaleString("en-US")}`
      : `${label} must be a number from ${range.min} to ${range.max.toLocaleString("en-US")}`;
  };

/** Empty, or a whole number within [min, max]. */
export const optionalWholeNumber = (label: string, min: number, max: number) => (value: string): string | null => {
  if (value === "" || (/^\d+$/.test(value) && Number(value) >= min && Number(value) <= max)) return null;
  return `${label} must be a whole number from ${min} to ${max.toLocaleString("en-US")}`;
};
