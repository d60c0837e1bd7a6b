/**
 * Example plugin: sign in with a username and password, as the well-known
 * `datasette-auth-passwords` does. Passwords are never stored: the configuration holds PBKDF2
 * hashes (`pbkdf2_sha256$<iterations>$<salt>$<hash>`, the format Django and that plugin use):
 *
 * ```json
 * { "plugins": { "password_login": {
 *     "accounts": {
 *       "alice": { "password_hash": "pbkdf2_sha256$480000$…$…", "actor": { "id": "alice", "roles": ["staff"] } }
 *     },
 *     "http_basic_auth": true
 * } } }
 * ```
 *
 * - `GET /-/login` shows a form (CSRF-protected); a right password sets the signed `ds_actor`
 *   cookie (so `/-/logout` signs out) and sends a `login` event; a wrong one says so, the same
 *   words for an unknown user and a wrong password.
 * - `/-/password-tool` turns a password into a hash to paste into the configuration.
 * - With `http_basic_auth`, `actor_from_request` also accepts `Authorization: Basic …` for scripts.
 * - `menu_links` offers "Sign in" to anonymous visitors.
 *
 * The form's template is bundled in `password_login/templates/`.
 *
 * Run: `vitrine serve data.db --plugin examples/plugins/password_login.ts -m metadata.json`
 */
import {
  type Actor,
  type HookArgs,
  LoginEvent,
  type Request,
  Response,
  type RouteView,
  type Service,
} from "../../mod.ts";

export const version = "0.1.0";

const DEFAULT_ITERATIONS = 480_000;

interface Account {
  password_hash: string;
  actor?: Actor;
}

interface Config {
  accounts?: Record<string, Account>;
  http_basic_auth?: boolean;
}

function config(svc: Service): Config {
  return svc.plugin_config<Config>("password_login") ?? {};
}

/** A PBKDF2-SHA256 hash of `password` in the `pbkdf2_sha256$iterations$salt$hash` format. */
export async function hashPassword(
  password: string,
  { iterations = DEFAULT_ITERATIONS, salt = randomSalt() } = {},
): Promise<string> {
  return `pbkdf2_sha256$${iterations}$${salt}$${await derive(password, salt, iterations)}`;
}

/** Whether `password` matches `hash`; false for a hash in any other format. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const [algorithm, iterations, salt, expected] = hash.split("$");
  if (algorithm !== "pbkdf2_sha256" || !salt || !expected || !(Number(iterations) > 0)) {
    return false;
  }
  const actual = await derive(password, salt, Number(iterations));
  // Compare every byte, so the time taken says nothing about where they differ.
  let difference = actual.length ^ expected.length;
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    difference |= (actual.charCodeAt(i) || 0) ^ (expected.charCodeAt(i) || 0);
  }
  return difference === 0;
}

async function derive(password: string, salt: string, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: new TextEncoder().encode(salt), iterations },
    key,
    256,
  );
  return btoa(String.fromCharCode(...new Uint8Array(bits)));
}

function randomSalt(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The actor for a username and password, or null. */
async function authenticate(svc: Service, username: string, password: string) {
  const account = config(svc).accounts?.[username];
  // An unknown user costs a hash as well, so timing does not tell which usernames exist.
  const hash = account?.password_hash ?? `pbkdf2_sha256$${DEFAULT_ITERATIONS}$x$x`;
  const ok = await verifyPassword(password, hash);
  return ok && account ? account.actor ?? { id: username } : null;
}

const login: RouteView = async ({ svc, request }) => {
  const action = String(svc.urls.path("-/login"));
  if (request.method !== "POST") return await page(svc, request, { action });
  const form = await request.post_vars();
  const username = String(form.username ?? "");
  const actor = await authenticate(svc, username, String(form.password ?? ""));
  if (!actor) {
    return await page(svc, request, {
      action,
      username,
      error: "Wrong username or password",
    }, 401);
  }
  await svc.track_event(new LoginEvent({ actor }));
  const response = Response.redirect(String(svc.urls.instance()));
  response.set_cookie("ds_actor", svc.sign({ a: actor }, "actor"), {
    httponly: true,
    samesite: "lax",
    secure: request.scheme === "https",
  });
  return response;
};

const passwordTool: RouteView = async ({ svc, request }) => {
  const action = String(svc.urls.path("-/password-tool"));
  if (request.method !== "POST") return await page(svc, request, { action, tool: true });
  const password = String((await request.post_vars()).password ?? "");
  if (!password) return await page(svc, request, { action, tool: true, error: "Type a password" });
  return await page(svc, request, { action, tool: true, hash: await hashPassword(password) });
};

async function page(
  svc: Service,
  request: Request,
  context: Record<string, unknown>,
  status = 200,
): Promise<Response> {
  const html = await svc.render_template("password_login.html", context, request);
  return Response.html(html, { status });
}

export function register_routes(_: HookArgs<"register_routes">): [RegExp, RouteView][] {
  return [[/^\/-\/login$/, login], [/^\/-\/password-tool$/, passwordTool]];
}

/** `Authorization: Basic` with a configured account, when `http_basic_auth` is on. */
export async function actor_from_request({ svc, request }: HookArgs<"actor_from_request">) {
  if (!config(svc).http_basic_auth) return null;
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers["authorization"] ?? "")?.[1];
  if (!basic) return null;
  let decoded: string;
  try {
    decoded = atob(basic);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return await authenticate(svc, decoded.slice(0, colon), decoded.slice(colon + 1));
}

export function menu_links({ svc, actor }: HookArgs<"menu_links">) {
  return actor ? null : [{ href: String(svc.urls.path("-/login")), label: "Sign in" }];
}
