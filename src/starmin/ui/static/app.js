// starmin ui: the page's script. It talks only to the server that served it (same origin);
// every message it shows comes from that server, which gives the command line's messages.
"use strict";

const $ = (sel) => document.querySelector(sel);
const FIELDS = ["k", "l", "l_kind", "c", "t", "distance", "sa_hierarchy", "distance_matrix",
  "p", "method", "options", "seed", "format", "objective"];
const ROLE_LABEL = {qi: "QI", sensitive: "sensitive", identifier: "identifier", ignore: "ignore"};
let meta = null;
let table = null;
let run = null;
let hierarchies = {};  // column -> hierarchy file typed or uploaded, kept across role changes

async function api(path, {body, raw} = {}) {
  const init = {method: "GET", headers: {}};
  if (body !== undefined || raw !== undefined) {
    init.method = "POST";
    init.headers["X-Starmin"] = "1";
    if (raw !== undefined) {
      init.body = raw;
      init.headers["Content-Type"] = "application/octet-stream";
    } else {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    throw new Error("the starmin ui server does not answer: is it still running?");
  }
  let data;
  try {
    data = await resp.json();
  } catch (e) {
    data = {error: `the server answered ${resp.status} without a message`};
  }
  if (!resp.ok) throw new Error(data.error || `the server answered ${resp.status}`);
  return data;
}

function showError(id, err) {
  const el = $(id);
  if (err) {
    el.textContent = err.message || String(err);
    el.hidden = false;
  } else {
    el.textContent = "";
    el.hidden = true;
  }
}

function option(select, value, text, title) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  if (title) o.title = title;
  select.append(o);
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function busy(button, on) {
  button.disabled = on;
}

// -- 1. open -------------------------------------------------------------------------------
async function openPath(path, button) {
  showError("#open-error", null);
  busy(button, true);
  try {
    showTable(await api("/api/open", {body: {path}}));
  } catch (err) {
    showError("#open-error", err);
  } finally {
    busy(button, false);
  }
}

async function upload(file, kind) {
  await api("/api/upload-check", {body: {name: file.name, size: file.size}});
  const q = `name=${encodeURIComponent(file.name)}&kind=${kind}`;
  return api(`/api/upload?${q}`, {raw: file});
}

async function uploadTable(input) {
  const file = input.files[0];
  if (!file) return;
  showError("#open-error", null);
  input.disabled = true;
  try {
    showTable(await upload(file, "table"));
  } catch (err) {
    showError("#open-error", err);
  } finally {
    input.disabled = false;
    input.value = "";
  }
}

async function uploadAux(input) {
  const file = input.files[0];
  if (!file) return;
  showError("#run-error", null);
  try {
    const r = await upload(file, "file");
    $("#" + input.dataset.fills).value = r.path;
  } catch (err) {
    showError("#run-error", err);
  } finally {
    input.value = "";
  }
}

// -- 2. columns ----------------------------------------------------------------------------
function showTable(t) {
  table = t;
  $("#table-title").textContent =
    `${t.label}: ${t.n.toLocaleString("en")} rows, ${t.columns.length} columns` +
    (t.rows.length < t.n ? ` (first ${t.rows.length} shown)` : "");
  if (t.format) $("#format").value = t.format;
  const grid = $("#preview");
  grid.replaceChildren();
  const head = el("thead");
  const names = el("tr");
  const roles = el("tr", null, "roles");
  const stats = el("tr", null, "stats");
  t.columns.forEach((c, i) => {
    names.append(el("th", c.name));
    const th = el("th");
    const sel = document.createElement("select");
    sel.className = "role";
    sel.id = `role-${i}`;
    sel.dataset.column = c.name;
    sel.setAttribute("aria-label", `role of ${c.name}`);
    for (const r of meta.roles) option(sel, r, ROLE_LABEL[r] || r);
    sel.value = t.roles[c.name] || "ignore";
    th.className = `role-${sel.value}`;
    sel.addEventListener("change", () => {
      th.className = `role-${sel.value}`;
      hierarchyRows();
    });
    th.append(sel);
    roles.append(th);
    const missing = c.missing ? `, ${c.missing.toLocaleString("en")} missing` : "";
    stats.append(el("th", `${c.dtype} · ${c.distinct.toLocaleString("en")} values${missing}`));
  });
  head.append(names, roles, stats);
  const body = el("tbody");
  for (const row of t.rows) {
    const tr = el("tr");
    for (const v of row) {
      tr.append(v === null ? el("td", "(missing)", "missing") : el("td", String(v)));
    }
    body.append(tr);
  }
  grid.append(head, body);
  hierarchies = {};
  $("#hierarchy-list").replaceChildren();
  hierarchyRows();
  $("#columns").hidden = false;
  $("#model").hidden = false;
}

function roles() {
  const out = {};
  for (const sel of document.querySelectorAll("select.role")) out[sel.dataset.column] = sel.value;
  return out;
}

// -- 3. model and method -------------------------------------------------------------------
// One hierarchy file field per QI column, in table order; a file typed for a column is kept
// when its role changes away from QI and back.
function hierarchyRows() {
  const list = $("#hierarchy-list");
  for (const input of list.querySelectorAll("input.hierarchy")) {
    hierarchies[input.dataset.column] = input.value;
  }
  list.replaceChildren();
  const r = roles();
  table.columns.forEach((c, i) => {
    if (r[c.name] !== "qi") return;
    const row = el("div", null, "hierarchy-row");
    const label = el("label", c.name);
    label.htmlFor = `hierarchy-${i}`;
    const input = document.createElement("input");
    input.type = "text";
    input.id = `hierarchy-${i}`;
    input.className = "hierarchy";
    input.dataset.column = c.name;
    input.spellcheck = false;
    input.placeholder = "/path/to/hierarchy.csv (optional)";
    input.value = hierarchies[c.name] || "";
    const up = document.createElement("input");
    up.type = "file";
    up.id = `hierarchy-${i}-upload`;
    up.accept = ".csv,.txt";
    up.dataset.fills = input.id;
    up.setAttribute("aria-label", `upload the hierarchy of ${c.name}`);
    up.addEventListener("change", (ev) => uploadAux(ev.target));
    row.append(label, input, up);
    list.append(row);
  });
  $("#hierarchy-none").hidden = list.children.length > 0;
}

function dependents() {
  for (const e of document.querySelectorAll("[data-when]")) {
    const [field, value] = e.dataset.when.split("=");
    e.hidden = $("#" + field).value !== value;
  }
  const m = meta.methods.find((x) => x.name === $("#method").value);
  $("#method-note").textContent = m ? `${m.kind}: ${m.statement}` +
    (m.reference ? ` [${m.reference}]` : "") +
    (m.options && m.options.length ? ` Options: ${m.options.join(", ")}.` : "") : "";
}

function form() {
  const f = {table: table.id, roles: roles()};
  for (const name of FIELDS) {
    const e = $("#" + name);
    const hidden = e.closest("[data-when]");
    if (!(hidden && hidden.hidden)) f[name] = e.value;
  }
  f.hierarchies = {};
  for (const input of document.querySelectorAll("#hierarchy-list input.hierarchy")) {
    if (input.value.trim()) f.hierarchies[input.dataset.column] = input.value;
  }
  f.generalize = $("#generalize").checked ? "1" : "";
  return f;
}

function follow(id, command) {
  run = {id, next: 0};
  $("#command").textContent = command;
  $("#log").textContent = "";
  showError("#progress-error", null);
  $("#report").removeAttribute("src");
  setState("running");
  $("#progress").hidden = false;
  $("#cancel").hidden = false;
  busy($("#run"), true);
  poll();
}

async function startRun(ev) {
  ev.preventDefault();
  showError("#run-error", null);
  const button = $("#run");
  busy(button, true);
  run = null;
  setState("");
  $("#progress").hidden = true;
  $("#result").hidden = true;
  try {
    const r = await api("/api/run", {body: form()});
    follow(r.id, r.command);
  } catch (err) {
    showError("#run-error", err);
    busy(button, false);
  }
}

// -- 4. progress ---------------------------------------------------------------------------
function setState(state) {
  const b = $("#run-state");
  b.dataset.state = state;
  b.textContent = state;
}

async function poll() {
  if (!run) return;
  let s;
  try {
    s = await api(`/api/runs/${run.id}?from=${run.next}`);
  } catch (err) {
    showError("#progress-error", err);
    setTimeout(poll, 1000);
    return;
  }
  if (s.lines.length) {
    const log = $("#log");
    log.textContent += s.lines.join("\n") + "\n";
    log.scrollTop = log.scrollHeight;
  }
  run.next = s.next;
  if (s.state === "running") {
    setTimeout(poll, 300);
    return;
  }
  setState(s.state);
  $("#cancel").hidden = true;
  busy($("#run"), false);
  if (s.state === "done") {
    showResult(s);
  } else {
    showError("#progress-error", new Error(s.error));
  }
}

async function cancelRun() {
  if (!run) return;
  try {
    await api(`/api/runs/${run.id}/cancel`, {body: {}});
  } catch (err) {
    showError("#progress-error", err);
  }
}

// -- 5. result -----------------------------------------------------------------------------
function fact(dl, term, value, cls) {
  dl.append(el("dt", term));
  dl.append(el("dd", value, cls));
}

function showResult(s) {
  const r = s.result || {};
  const dl = $("#headline");
  dl.replaceChildren();
  fact(dl, "verified", r.verified ? "yes — the independent verifier passed every model" : "no",
    r.verified ? "verified" : "not-verified");
  fact(dl, "model", r.model);
  fact(dl, "method", `${r.method} (${r.guarantee})`);
  const pct = r.star_fraction === null || r.star_fraction === undefined ? "" :
    ` (${(100 * r.star_fraction).toFixed(2)} % of QI cells)`;
  fact(dl, "stars", `${Number(r.stars).toLocaleString("en")}${pct}`);
  const ratio = r.gap_ratio ? `, within ${Number(r.gap_ratio).toFixed(3)} × the bound` : "";
  fact(dl, "proven bound", `optimum ≥ ${Number(r.lower_bound).toLocaleString("en")} stars` +
    `; gap ${Number(r.gap).toLocaleString("en")}${ratio}`);
  fact(dl, "records touched", `${Number(r.suppressed_records).toLocaleString("en")} of ` +
    `${Number(r.n).toLocaleString("en")}; ${Number(r.classes).toLocaleString("en")} classes`);
  fact(dl, "seed", String(r.seed));
  const names = Object.fromEntries(s.files.map((f) => [f.kind, f.name]));
  const link = (id, kind, text) => {
    const a = $(id);
    a.href = `/runs/${s.id}/files/${kind}`;
    a.download = names[kind] || "";
    a.textContent = `${text} (${names[kind] || kind})`;
  };
  link("#download-release", "release", "Download the release");
  link("#download-json", "report.json", "report, JSON");
  link("#download-html", "report.html", "report, HTML");
  $("#report").src = `/runs/${s.id}/report`;
  $("#result").hidden = false;
}

// -- start ---------------------------------------------------------------------------------
async function init() {
  try {
    meta = await api("/api/meta");
  } catch (err) {
    showError("#open-error", err);
    return;
  }
  $("#version").textContent = meta.version;
  $("#limit").textContent = meta.max_upload_text;
  for (const s of meta.samples) option($("#sample"), `sample:${s.name}`, s.name, s.description);
  for (const k of meta.l_kinds) option($("#l_kind"), k, k);
  for (const d of meta.distances) option($("#distance"), d, d);
  for (const m of meta.methods) {
    const text = m.name === "auto" ? "auto (default): portfolio" : `${m.name} — ${m.kind}`;
    option($("#method"), m.name, text, m.statement);
  }
  for (const f of meta.formats) option($("#format"), f, f);
  $("#open-path").addEventListener("submit", (ev) => {
    ev.preventDefault();
    openPath($("#path").value, $("#open-path-button"));
  });
  $("#open-sample").addEventListener("submit", (ev) => {
    ev.preventDefault();
    openPath($("#sample").value, $("#open-sample-button"));
  });
  $("#upload").addEventListener("change", (ev) => uploadTable(ev.target));
  for (const e of document.querySelectorAll("input[data-fills]")) {
    e.addEventListener("change", (ev) => uploadAux(ev.target));
  }
  for (const id of ["#l_kind", "#distance", "#method"]) {
    $(id).addEventListener("change", dependents);
  }
  $("#run-form").addEventListener("submit", startRun);
  $("#cancel").addEventListener("click", cancelRun);
  dependents();
  if (meta.running) follow(meta.running.id, meta.running.command);  // a run still going
  document.body.dataset.ready = "1";
}

init();
