// The one way pages call Vitrine's JSON write API (create, alter, insert, update, delete,
// execute-write): a same-origin POST carrying the page's CSRF token, answered with JSON whose
// `errors` become one Error holding their messages. Imported as an ES module by the write pages'
// scripts (static/write.js, alter-table.js, create-table.js, execute-write.js, upload.js).

/** The CSRF token of the nearest element above `element` that carries `data-csrftoken`. */
export function csrfToken(element) {
  const holder = element && element.closest("[data-csrftoken]");
  return holder ? holder.dataset.csrftoken : "";
}

/**
 * POSTs `body` (an object, or JSON text already written) to `url`; resolves with the parsed
 * answer, or throws an Error whose message is the answer's errors, one a line. Options:
 * `csrftoken` (or `from`, an element inside a `data-csrftoken` holder), `flash` (default true:
 * the page the script moves to next shows the outcome as a message) and `parse` (JSON text to a
 * value; the row forms keep integers beyond 2^53 exact).
 */
export async function postJson(url, body, options = {}) {
  const { from = null, flash = true, parse = JSON.parse } = options;
  const headers = {
    "content-type": "application/json",
    "accept": "application/json",
    "x-csrftoken": options.csrftoken ?? csrfToken(from),
  };
  if (flash) headers["x-vitrine-flash"] = "1";
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return await readAnswer(response, parse);
}

/**
 * The JSON answer of a write endpoint: the parsed value when it succeeded, else an Error whose
 * message is the answer's errors, one a line (or the status when the answer is not JSON).
 */
export async function readAnswer(response, parse = JSON.parse) {
  let data = null;
  try {
    data = parse(await response.text());
  } catch {
    data = null;
  }
  if (!response.ok || !data || data.ok === false) {
    const errors = data && Array.isArray(data.errors) && data.errors.length
      ? data.errors
      : [`${response.status} ${response.statusText}`.trim()];
    throw new Error(errors.join("\n"));
  }
  return data;
}
