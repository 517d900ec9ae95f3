import { ApiError, call } from "../api.ts";
import { h, uniqueId } from "../dom.ts";

// The spec's limits on POST /estimator: at most 10 messages of at most 2,000 characters.
const MAX_MESSAGES = 10;
const MAX_CHARACTERS = 2_000;

interface Message {
  role: "user" | "assistant";
  content: string;
}

interface EstimatorAnswer {
  choices: { message: { content: string } }[];
}

const turn = (message: Message) =>
  h("li", { class: `turn ${message.role}` },
    h("p", { class: "turn-who" }, message.role === "user" ? "You" : "Estimator"),
    h("p", { class: "turn-text" }, message.content));

/**
 * A conversation with `POST /estimator`: describe a use case, get a model, a monthly cost and a
 * credit pack; follow-up questions carry the conversation, up to the endpoint's 10 messages.
 */
export async function renderEstimator(root: HTMLElement): Promise<void> {
  const history: Message[] = [];
  const id = uniqueId("estimator-input");
  const hint = h("p", { class: "hint", id: `${id}-hint` },
    "Say what you are building, how many users or requests a day, and whether it needs code, documents or reasoning. The answer is an estimate, not a bill.");
  const input = h("textarea", { id, name: "content", rows: 4, maxlength: MAX_CHARACTERS, "aria-describedby": `${id}-hint`, required: true });
  const submit = h("button", { type: "submit", class: "button" }, "Estimate");
  const status = h("div", { class: "form-status", "aria-live": "polite" });
  const log = h("ol", { class: "conversation", "aria-live": "polite", "aria-label": "Conversation" });
  const restart = h("button", { type: "button", class: "button secondary", hidden: true, onClick: () => {
    history.length = 0;
    log.replaceChildren();
    restart.hidden = true;
    submit.disabled = false;
    input.focus();
  } }, "Start over");

  const send = async (event: Event) => {
    event.preventDefault();
    const content = input.value.trim();
    status.replaceChildren();
    if (content === "" || [...content].length > MAX_CHARACTERS) {
      status.replaceChildren(h("p", { class: "notice error", role: "alert" }, `Describe your use case in 1 to ${MAX_CHARACTERS.toLocaleString("en-US")} characters.`));
      input.focus();
      return;
    }
    submit.disabled = true;
    try {
      const messages = [...history, { role: "user" as const, content }];
      const answer = await call<EstimatorAnswer>("POST", "/estimator", { messages });
      history.push(messages.at(-1)!, { role: "assistant", content: answer.choices[0]?.message.content ?? "" });
      log.replaceChildren(...history.map(turn));
      input.value = "";
      restart.hidden = false;
    } catch (error) {
      status.replaceChildren(h("p", { class: "notice error", role: "alert" }, error instanceof ApiError ? error.message : String(error)));
    } finally {
      // A reply takes the last two places of the 10; after that, only starting over helps.
      submit.disabled = history.length + 1 > MAX_MESSAGES;
      if (submit.disabled) status.replaceChildren(h("p", { class: "notice info", role: "status" }, "That is as long as a conversation gets. Start over to ask about something else."));
    }
  };

  root.replaceChildren(
    log,
    h("form", { class: "card", novalidate: true, onSubmit: (e: Event) => void send(e) },
      h("div", { class: "field" }, h("label", { for: id }, "Your use case"), hint, input),
      status,
      h("div", { class: "actions" }, submit, restart),
    ),
  );
}
