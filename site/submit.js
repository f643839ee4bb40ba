// graphcost submission page (served by `graphcost-eval serve`): a team's token, a CSV checked in the
// browser by the WebAssembly validator against the public ID list (/api/ids) before it is sent,
// the upload, the team's submissions as they are scored, and its final picks. Every value from
// the server or the file is inserted as text, never as HTML.
"use strict";

const state = { competition: null, ids: null, validator: null, bytes: null, name: "", mine: [], polling: null };

function $(id) { return document.getElementById(id); }

function el(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function showMessage(text) {
  $("message").textContent = text;
  $("message").hidden = !text;
}

function token() { return $("token").value.trim(); }

async function api(path, options = {}) {
  const headers = { ...(options.headers || {}) };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  const response = await fetch(path, { ...options, headers, cache: "no-store" });
  let body = null;
  try { body = await response.json(); } catch { body = { error: `HTTP ${response.status}` }; }
  return { status: response.status, body };
}

// ---- the in-browser pre-check ---------------------------------------------------------------

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = el("script", { src });
    script.onload = resolve;
    script.onerror = () => reject(new Error(`${src} did not load`));
    document.head.append(script);
  });
}

async function loadValidator() {
  try {
    const ids = await fetch("api/ids", { cache: "no-store" });
    if (!ids.ok) throw new Error(`api/ids: HTTP ${ids.status}`);
    state.ids = new TextEncoder().encode(await ids.text());
    await loadScript("app/graphcost_validate.js");
    state.validator = await window.createGraphcostValidator();
    $("precheck").textContent = "Pre-check: ready. Choose or paste a file.";
  } catch (error) {
    state.validator = null;
    $("precheck").textContent = `Pre-check unavailable (${error.message}); the server still checks the file when you upload it.`;
  }
  window.submitPageState = { validator: state.validator !== null };
  refreshUploadButton();
}

function validate(bytes) {
  const v = state.validator;
  const ids = v._malloc(state.ids.length), sub = v._malloc(Math.max(1, bytes.length));
  try {
    v.HEAPU8.set(state.ids, ids);
    v.HEAPU8.set(bytes, sub);
    return JSON.parse(v.UTF8ToString(v._graphcost_validate(ids, state.ids.length, sub, bytes.length)));
  } finally {
    v._free(ids);
    v._free(sub);
  }
}

// The file's line `number` (1-based), for showing an error in place.
function lineOf(bytes, number) {
  let start = 0;
  for (let line = 1; line < number; line++) {
    const next = bytes.indexOf(10, start);
    if (next < 0) return "";
    start = next + 1;
  }
  let end = bytes.indexOf(10, start);
  if (end < 0) end = bytes.length;
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(start, Math.min(end, start + 400))).replace(/\r$/, "");
}

function showErrors(list, bytes) {
  const box = $("errors");
  box.replaceChildren();
  for (const error of list) {
    const where = error.line ? `line ${error.line}${error.column ? `, column ${error.column}` : ""}` : "file";
    const item = el("li", {}, `${where}: ${error.message}`);
    if (bytes && error.line) {
      const text = lineOf(bytes, error.line);
      const column = Math.max(1, error.column || 1);
      const from = Math.max(0, column - 40);
      item.append(el("br"), document.createTextNode(`  ${from > 0 ? "…" : ""}${text.slice(from, column + 40)}`));
      if (error.column) item.append(el("br"), document.createTextNode(`  ${from > 0 ? " " : ""}${" ".repeat(column - 1 - from)}^`));
    }
    box.append(item);
  }
}

function precheck() {
  $("upload-result").textContent = "";
  if (!state.bytes) {
    showErrors([]);
    $("precheck").textContent = state.validator ? "Pre-check: ready. Choose or paste a file." : $("precheck").textContent;
    window.submitPageState = { ...window.submitPageState, checked: false };
    return refreshUploadButton();
  }
  if (!state.validator) return refreshUploadButton();
  const started = performance.now();
  const result = validate(state.bytes);
  const ms = Math.round(performance.now() - started);
  if (result.error) {
    $("precheck").textContent = `Pre-check failed: ${result.error}`;
    state.valid = true;  // let the server decide
  } else if (result.valid) {
    $("precheck").className = "ok";
    $("precheck").textContent = `Pre-check: ${state.name} is valid (${result.rows} rows, checked in ${ms} ms).`;
    state.valid = true;
  } else {
    $("precheck").className = "bad";
    $("precheck").textContent = `Pre-check: ${state.name} has ${result.error_count} error${result.error_count === 1 ? "" : "s"}` +
      `${result.error_count > result.errors.length ? ` (the first ${result.errors.length} below)` : ""}; fix ${result.error_count === 1 ? "it" : "them"} before uploading.`;
    state.valid = false;
  }
  showErrors(result.errors || [], state.bytes);
  window.submitPageState = { ...window.submitPageState, checked: true, valid: result.valid === true, errors: result.errors || [] };
  refreshUploadButton();
}

function refreshUploadButton() {
  const open = !state.competition || state.competition.open;
  $("upload").disabled = !state.bytes || !token() || !open || (state.validator !== null && state.valid === false);
}

async function useFile(file) {
  state.bytes = new Uint8Array(await file.arrayBuffer());
  state.name = file.name;
  $("paste").value = "";
  precheck();
}

// ---- upload, my submissions, final picks -------------------------------------------------------

async function upload() {
  $("upload").disabled = true;
  $("upload-result").textContent = "Uploading…";
  const { status, body } = await api("api/submissions", { method: "POST", body: state.bytes, headers: { "Content-Type": "text/csv" } });
  if (status === 202) {
    $("upload-result").className = "ok";
    $("upload-result").textContent = `Accepted as submission #${body.id}: queued for scoring.`;
    await refreshMine();
  } else {
    $("upload-result").className = "bad";
    $("upload-result").textContent = `Not accepted (HTTP ${status}): ${body.error}`;
    if (body.errors) showErrors(body.errors, state.bytes);
  }
  window.submitPageState = { ...window.submitPageState, lastUpload: { status, body } };
  refreshUploadButton();
}

function formatScore(value) { return value === null || value === undefined ? "–" : value.toFixed(4); }

async function refreshMine() {
  if (!token()) return;
  const { status, body } = await api("api/submissions");
  if (status !== 200) {
    $("team").textContent = body.error;
    $("mine-section").hidden = true;
    return;
  }
  showMessage("");
  $("team").textContent = `Signed in as team ${body.team}.`;
  if ($("remember").checked) localStorage.setItem("graphcost-token", token());
  state.mine = body.submissions;
  const finalBoard = body.submissions.some((s) => "private" in s);
  $("private-head").hidden = !finalBoard;
  $("finals-rule").textContent = `Pick up to ${body.finals_allowed} scored submissions for the private board; ` +
    "without picks, your best public ones count.";
  const rows = document.createDocumentFragment();
  for (const s of [...body.submissions].reverse()) {
    const tr = el("tr", { "data-id": String(s.id) });
    tr.append(el("td", {}, String(s.id)), el("td", {}, s.submitted_at.replace("T", " ").replace("Z", "")),
      el("td", { class: `status-${s.status}` }, s.status), el("td", {}, formatScore(s.public)));
    if (finalBoard) tr.append(el("td", {}, formatScore(s.private)));
    const pick = el("td");
    if (s.status === "scored") {
      const box = el("input", { type: "checkbox", value: String(s.id), class: "pick" });
      box.checked = s.picked;
      pick.append(box);
    }
    tr.append(pick, el("td", { class: "team" }, s.error || ""));
    rows.append(tr);
  }
  $("mine").querySelector("tbody").replaceChildren(rows);
  $("mine-section").hidden = false;
  const waiting = body.submissions.some((s) => s.status === "queued" || s.status === "scoring");
  clearTimeout(state.polling);
  if (waiting) state.polling = setTimeout(refreshMine, 1000);
  window.submitPageState = { ...window.submitPageState, mine: body.submissions };
  refreshUploadButton();
}

async function saveFinals() {
  const picks = [...document.querySelectorAll("input.pick:checked")].map((box) => Number(box.value));
  const { status, body } = await api("api/finals", { method: "PUT", body: JSON.stringify({ submissions: picks }),
    headers: { "Content-Type": "application/json" } });
  $("finals-result").textContent = status === 200 ? `Saved: ${body.finals.length ? body.finals.map((id) => `#${id}`).join(", ") : "no picks"}.`
    : `Not saved: ${body.error}`;
  await refreshMine();
}

// ---- wiring ------------------------------------------------------------------------------------

async function main() {
  const remembered = localStorage.getItem("graphcost-token");
  if (remembered) { $("token").value = remembered; $("remember").checked = true; }
  $("remember").addEventListener("change", () => { if (!$("remember").checked) localStorage.removeItem("graphcost-token"); });
  $("token").addEventListener("input", refreshUploadButton);
  $("sign-in").addEventListener("click", refreshMine);
  $("file").addEventListener("change", () => $("file").files[0] && useFile($("file").files[0]));
  const drop = $("drop");
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    if (event.dataTransfer.files[0]) useFile(event.dataTransfer.files[0]);
  });
  $("paste").addEventListener("input", () => {
    state.bytes = $("paste").value ? new TextEncoder().encode($("paste").value) : null;
    state.name = "the pasted text";
    precheck();
  });
  $("upload").addEventListener("click", upload);
  $("save-finals").addEventListener("click", saveFinals);
  try {
    const response = await fetch("api/competition", { cache: "no-store" });
    state.competition = await response.json();
    const c = state.competition;
    document.title = `Submit — ${c.title}`;
    $("title").textContent = c.title;
    $("rules").textContent = `${c.graphs} graphs · ${c.daily_cap} submissions per team and UTC day · ${c.finals} final picks · ` +
      (c.open ? `closes ${c.deadline.replace("T", " ").replace("Z", " UTC")}` : `closed at ${c.deadline.replace("T", " ").replace("Z", " UTC")}: the private board is out`);
  } catch (error) {
    showMessage(`This page needs graphcost-eval serve (api/competition: ${error.message}).`);
  }
  await loadValidator();
  if (token()) await refreshMine();
}

main();
