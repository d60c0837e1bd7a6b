// The fields of the row forms (templates/_write_field.html), shared by the insert and edit forms
// (static/write.js), the table page's inline and bulk editors (table-edit.js) and its paste panel
// (paste-rows.js): what JSON a field sends for its column, why its value cannot be saved, the
// NULL box and foreign-key lookups, and the tilde encoding of row keys.

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
// Untyped columns only take a number written the plain way (`007` stays text).
const PLAIN_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** JSON text for a number typed as `text`: `+5` → `5`, `007` → `7`, `.5` → `0.5`, `2.` → `2.0`. */
export function numberJson(text) {
  if (INTEGER.test(text)) return BigInt(text).toString();
  let sign = "";
  let body = text;
  if (body[0] === "+" || body[0] === "-") {
    sign = body[0] === "-" ? "-" : "";
    body = body.slice(1);
  }
  body = body.replace(/^0+(?=\d)/, "");
  if (body.startsWith(".")) body = "0" + body;
  body = body.replace(/\.(?=[eE]|$)/, ".0");
  return sign + body;
}

/** The JSON text a field sends, or undefined to leave the column out. */
export function fieldJson(field, mode) {
  const nullBox = field.querySelector("[data-null]");
  const input = field.querySelector("[data-value]");
  if (!input) return undefined; // a BLOB: not editable here
  if (nullBox && nullBox.checked) return "null";
  const text = input.value;
  if (mode === "insert" && text === "") return undefined; // the column's default
  return valueJson(text, field.dataset);
}

/**
 * The JSON text `text` is sent as to a column with `affinity` (INTEGER, REAL, NUMERIC, TEXT or
 * BLOB), `widget` (a typed column's) and `kind` (what the value was: an untyped column's text
 * stays text).
 */
export function valueJson(text, { affinity, widget = "", kind = "" }) {
  const trimmed = text.trim();
  // A typed column (date, url, json, ...) holds text whatever its declared type.
  if (widget) return JSON.stringify(text);
  switch (affinity) {
    case "TEXT":
      return JSON.stringify(text);
    case "INTEGER":
    case "REAL":
    case "NUMERIC":
      return NUMBER.test(trimmed) ? numberJson(trimmed) : JSON.stringify(text);
    default:
      // No declared type: a value that was text stays text; otherwise numbers are numbers.
      if (kind !== "text" && PLAIN_NUMBER.test(trimmed)) return trimmed;
      return JSON.stringify(text);
  }
}

/**
 * Why the field's value cannot be saved, or null: the server checks the same (and more), this
 * says it before the round trip, on the field itself.
 */
export function fieldProblem(field, mode) {
  const input = field.querySelector("[data-value]");
  if (!input) return null;
  const nullBox = field.querySelector("[data-null]");
  const name = field.dataset.column;
  if (nullBox && nullBox.checked) {
    return field.dataset.notnull === "1" ? `${name} cannot be NULL` : null;
  }
  const text = input.value;
  if (mode === "insert" && text === "") return null; // the column's default
  if (field.dataset.widget === "json" && text.trim() !== "") {
    try {
      JSON.parse(text);
    } catch (error) {
      return `${name} must be valid JSON: ${error.message}`;
    }
  }
  // The browser knows what a url or email input accepts, and says it in its own words.
  if (input.validity.typeMismatch || input.validity.badInput) {
    return `${name}: ${input.validationMessage}`;
  }
  // DATETIME, BOOLEAN or JSON columns (NUMERIC affinity) hold text too: only number columns.
  if (field.dataset.numbers === "1" && !NUMBER.test(text.trim())) {
    return `${name} is ${field.dataset.type || field.dataset.affinity}: ` +
      `${JSON.stringify(text)} is not a number`;
  }
  return null;
}

export function state(field) {
  const input = field.querySelector("[data-value]");
  const nullBox = field.querySelector("[data-null]");
  return JSON.stringify([input ? input.value : null, nullBox ? nullBox.checked : null]);
}

/** Like JSON.parse, but integers beyond 2^53 keep their digits (as strings) where supported. */
export function parseJson(text) {
  return JSON.parse(text, (_key, value, context) => {
    if (
      typeof value === "number" && !Number.isSafeInteger(value) && context &&
      INTEGER.test(context.source)
    ) return context.source;
    return value;
  });
}

/** Tilde encoding of a row key value, as row URLs use it. */
export function tildeEncode(text) {
  let out = "";
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9_-]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += "~" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

export function rowUrl(tableUrl, keys, row) {
  const columns = keys.length ? keys : ["rowid"];
  return tableUrl + "/" + columns.map((key) => tildeEncode(String(row[key]))).join(",");
}

/**
 * A foreign-key field: typing a label offers the matching rows of the referenced table (its
 * JSON, `<label>__contains=`) as suggestions whose values are their keys, and the label of the
 * row the current value points to is shown beside the field.
 */
function enhanceLookup(input) {
  const list = document.getElementById(input.getAttribute("list"));
  const shown = input.closest(".write-field").querySelector("[data-fk-label]");
  const { lookup, lookupKey, lookupLabel } = input.dataset;
  let timer = null;
  let asked = 0;
  const rowsOf = async (args) => {
    const url = new URL(lookup, location.href);
    url.searchParams.set("_shape", "array");
    url.searchParams.set("_size", "10");
    for (const [name, value] of args) url.searchParams.set(name, value);
    const response = await fetch(url, { headers: { accept: "application/json" } });
    return response.ok ? await response.json() : [];
  };
  const search = async () => {
    const text = input.value.trim();
    const ask = ++asked;
    const [matches, exact] = await Promise.all([
      text ? rowsOf([[`${lookupLabel}__contains`, text]]) : [],
      text ? rowsOf([[`${lookupKey}__exact`, text]]) : [],
    ]);
    if (ask !== asked) return; // a later keystroke's answer wins
    list.replaceChildren(...matches.map((row) => {
      const option = document.createElement("option");
      option.value = String(row[lookupKey]);
      option.label = String(row[lookupLabel]);
      option.textContent = String(row[lookupLabel]);
      return option;
    }));
    if (shown) shown.textContent = exact.length ? String(exact[0][lookupLabel] ?? "") : "";
  };
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
}

/** Tilde decoding of one row key value (`A~2F1001` is `A/1001`, `+` a space). */
export function tildeDecode(text) {
  const bytes = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "~" && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === "+") bytes.push(32);
    else bytes.push(...new TextEncoder().encode(c));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/**
 * Wires one field: ticking NULL greys the value, typing a value unticks NULL (and clears what the
 * last check said), and a foreign-key field looks up labels as one types.
 */
export function enhanceField(field) {
  const lookup = field.querySelector("input[data-lookup]");
  if (lookup) enhanceLookup(lookup);
  const input = field.querySelector("[data-value]");
  const nullBox = field.querySelector("[data-null]");
  if (!input || !nullBox) return;
  const sync = () => input.classList.toggle("write-is-null", nullBox.checked);
  nullBox.addEventListener("change", () => {
    input.setCustomValidity("");
    sync();
  });
  input.addEventListener("input", () => {
    input.setCustomValidity("");
    if (nullBox.checked) {
      nullBox.checked = false;
      sync();
    }
  });
  sync();
}

let copies = 0;

/** A copy of a column's field from its `<template>`, with ids of its own. */
export function copyField(template) {
  const field = template.content.firstElementChild.cloneNode(true);
  const suffix = `-copy${++copies}`;
  field.querySelectorAll("[id]").forEach((node) => (node.id += suffix));
  field.querySelectorAll("label[for]").forEach((node) => (node.htmlFor += suffix));
  field.querySelectorAll("[list]").forEach((node) => {
    node.setAttribute("list", node.getAttribute("list") + suffix);
  });
  return field;
}

/** Shows `message` (or hides the box, when empty) in the `.write-error` of `container`. */
export function showError(container, message) {
  const box = container.querySelector(".write-error");
  box.textContent = message || "";
  box.hidden = !message;
}
