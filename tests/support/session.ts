// Signs users up through the real endpoints and sends their requests with the session cookie.
export const PASSWORD = "correct horse battery";

export interface Browser {
  email: string;
  /** `gw_session=<token>`, as a browser would send it. */
  cookie: string;
  /** A request carrying the cookie; an object body is sent as JSON. */
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

let counter = 0;
export const uniqueEmail = (label = "user") => `${label}-${process.pid}-${++counter}@example.com`;

const cookieOf = (res: Response): string => {
  const header = res.headers.get("set-cookie");
  if (!header) throw new Error(`no Set-Cookie in a ${res.status} answer`);
  return header.split(";")[0]!;
};

export function request(baseUrl: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  return fetch(`${baseUrl}${path}`, init);
}

export const browserWith = (baseUrl: string, email: string, cookie: string): Browser => ({
  email,
  cookie,
  send: (method, path, body, headers = {}) => request(baseUrl, method, path, body, { cookie, ...headers }),
});

/** Signs up a new user (from `headers`' X-Forwarded-For, when given) and returns its browser. */
export async function signUpUser(baseUrl: string, email = uniqueEmail(), headers: Record<string, string> = {}): Promise<Browser> {
  const res = await request(baseUrl, "POST", "/auth/signup", { email, password: PASSWORD }, headers);
  if (res.status !== 201) throw new Error(`sign-up answered ${res.status}: ${await res.text()}`);
  return browserWith(baseUrl, email, cookieOf(res));
}

export async function logInUser(baseUrl: string, email: string, password = PASSWORD): Promise<Browser> {
  const res = await request(baseUrl, "POST", "/auth/login", { email, password });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return browserWith(baseUrl, email, cookieOf(res));
}
