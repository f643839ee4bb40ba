// graphcost leaderboard page: renders data/leaderboard.json (written by `graphcost-eval leaderboard`)
// and, on demand, data/details/<n>.json. Every value from the data is inserted as text
// (textContent / createTextNode), never as HTML: team names are untrusted.
"use strict";

const params = new URLSearchParams(location.search);
// ?data= may point elsewhere on this site only: a foreign URL could present a made-up board.
const requestedData = params.get("data") || "data/leaderboard.json";
const dataUrl = new URL(requestedData, location.href).origin === location.origin ? requestedData : "data/leaderboard.json";
const detailsBase = dataUrl.replace(/[^/]*$/, "") + "details/";
const SVG = "http://www.w3.org/2000/svg";
const PALETTE = ["#2f6fdf", "#e0663a", "#2e9e5b", "#9b59b6", "#c0392b", "#16a2b8", "#8a6d3b", "#d63384", "#6c757d", "#20c997"];

function el(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function svgEl(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// Math.min(...values) passes every value as an argument: past ~100k values it overflows the call
// stack ("Maximum call stack size exceeded"). These loop instead.
function minOf(values, start = Infinity) {
  let result = start;
  for (const v of values) if (v < result) result = v;
  return result;
}
function maxOf(values, start = -Infinity) {
  let result = start;
  for (const v of values) if (v > result) result = v;
  return result;
}

function formatScore(value) {
  return value === null || value === undefined ? "–" : value.toFixed(4);
}

function showMessage(text) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.hidden = false;
}

async function fetchJson(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

// ---- standings table ----------------------------------------------------------------------------

function renderStandings(board) {
  const columns = [
    { key: "rank", label: "Rank", value: (t) => t.rank },
    { key: "team", label: "Team", value: (t) => t.team.toLowerCase(), cls: "team" },
    { key: "score", label: board.board === "private" ? "Private" : "Public", value: (t) => t.score },
    ...board.collections.map((name) => ({ key: name, label: name, value: (t) => t.collections[name] })),
    { key: "entries", label: "Entries", value: (t) => t.entries },
    { key: "last", label: "Last submission", value: (t) => t.last_submission },
  ];
  const headRow = document.querySelector("#standings thead tr");
  const body = document.querySelector("#standings tbody");
  let sort = { key: "rank", direction: 1 };

  function draw() {
    const column = columns.find((c) => c.key === sort.key);
    const rows = [...board.teams].sort((a, b) => {
      const x = column.value(a), y = column.value(b);
      if (x === y) return a.rank - b.rank;
      if (x === null || x === undefined) return 1;   // missing values last in either direction
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * sort.direction;
    });
    body.replaceChildren();
    for (const team of rows) {
      const tr = el("tr", { "data-team-rank": String(team.rank) });
      tr.append(el("td", {}, String(team.rank)));
      tr.append(el("td", { class: "team" }, team.team));
      tr.append(el("td", { title: String(team.score) }, formatScore(team.score)));
      for (const name of board.collections) tr.append(el("td", {}, formatScore(team.collections[name])));
      tr.append(el("td", {}, String(team.entries) + (team.failed ? ` (+${team.failed} failed)` : "")));
      tr.append(el("td", {}, team.last_submission.replace("T", " ").replace("Z", " UTC")));
      body.append(tr);
    }
    for (const th of headRow.children) {
      th.classList.toggle("sorted-asc", th.dataset.key === sort.key && sort.direction === 1);
      th.classList.toggle("sorted-desc", th.dataset.key === sort.key && sort.direction === -1);
    }
  }

  headRow.replaceChildren();
  for (const column of columns) {
    const th = el("th", { "data-key": column.key, class: column.cls || "" }, column.label);
    th.addEventListener("click", () => {
      // Scores sort best-first on the first click; everything else ascending.
      const bestFirst = column.key === "score" || board.collections.includes(column.key);
      sort = sort.key === column.key ? { key: column.key, direction: -sort.direction }
                                     : { key: column.key, direction: bestFirst ? -1 : 1 };
      draw();
    });
    headRow.append(th);
  }
  draw();
  document.getElementById("standings-section").hidden = false;
}

// ---- best score over time -----------------------------------------------------------------------

function renderHistory(board) {
  const scoreKey = board.board === "private" ? "private" : "public";
  // A timestamp that does not parse (the evaluator refuses them; older or foreign data may hold
  // one) is left out of the chart rather than turning every coordinate into NaN.
  const scored = board.submissions.filter((s) => s.status === "scored" && s[scoreKey] !== null &&
    Number.isFinite(Date.parse(s.timestamp)));
  if (scored.length === 0) return;
  const teams = board.teams.filter((t) => t.entries > 0).slice(0, PALETTE.length).map((t) => t.team);
  const times = scored.map((s) => Date.parse(s.timestamp));
  const t0 = minOf(times), t1 = maxOf(times, t0 + 1);
  const values = scored.map((s) => s[scoreKey]);
  let lo = minOf(values), hi = maxOf(values);
  if (hi - lo < 1e-9) { lo -= 0.5; hi += 0.5; }
  const W = 900, H = 300, left = 60, right = 180, top = 15, bottom = 35;
  const x = (t) => left + (W - left - right) * (t - t0) / (t1 - t0);
  const y = (v) => top + (H - top - bottom) * (1 - (v - lo) / (hi - lo));
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "running best score per team" });
  for (let i = 0; i <= 4; i++) {
    const v = lo + (hi - lo) * i / 4;
    svg.append(svgEl("line", { x1: left, x2: W - right, y1: y(v), y2: y(v), stroke: "#e6e9ee" }));
    svg.append(svgEl("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#5f6b7a" }, v.toFixed(3)));
  }
  svg.append(svgEl("text", { x: left, y: H - 10, "font-size": 11, fill: "#5f6b7a" }, new Date(t0).toISOString().slice(0, 16).replace("T", " ")));
  svg.append(svgEl("text", { x: W - right, y: H - 10, "font-size": 11, fill: "#5f6b7a", "text-anchor": "end" }, new Date(t1).toISOString().slice(0, 16).replace("T", " ")));
  teams.forEach((team, index) => {
    // A step line of the team's running best, carried to the last submission of anyone, with a
    // marker where a submission raised it. Only the improvements become points, and all markers
    // are one <path>: a board of 150,000 submissions stays a handful of SVG elements.
    let best = -Infinity;
    const points = [];
    let markers = "";
    for (const s of scored) {
      if (s.team !== team || !(s[scoreKey] > best)) continue;
      best = s[scoreKey];
      const px = x(Date.parse(s.timestamp)), py = y(best);
      if (points.length) points.push(`${px},${points[points.length - 1].split(",")[1]}`);
      points.push(`${px},${py}`);
      markers += `M${px - 3.5},${py}a3.5,3.5 0 1,0 7,0a3.5,3.5 0 1,0 -7,0`;
    }
    if (!points.length) return;
    points.push(`${x(t1)},${points[points.length - 1].split(",")[1]}`);
    const color = PALETTE[index];
    svg.append(svgEl("polyline", { points: points.join(" "), fill: "none", stroke: color, "stroke-width": 2 }));
    svg.append(svgEl("path", { d: markers, fill: color, class: "improvements" }));
    const legend = svgEl("text", { x: W - right + 12, y: top + 14 + 16 * index, "font-size": 12, fill: color });
    legend.textContent = team.length > 24 ? team.slice(0, 23) + "…" : team;
    svg.append(legend);
  });
  document.getElementById("history-chart").replaceChildren(svg);
  document.getElementById("history-section").hidden = false;
}

// ---- top teams per collection -------------------------------------------------------------------

function renderCollectionTops(board) {
  const container = document.getElementById("collection-tops");
  container.replaceChildren();
  for (const name of board.collections) {
    const ranked = board.teams.filter((t) => t.collections[name] !== null && t.collections[name] !== undefined)
      .sort((a, b) => b.collections[name] - a.collections[name] || a.rank - b.rank).slice(0, 3);
    const card = el("div", { class: "card" });
    card.append(el("h3", {}, name));
    if (!ranked.length) card.append(el("p", { class: "muted" }, "no scored graphs"));
    const list = el("ol");
    ranked.forEach((team, position) => {
      const item = el("li");
      item.append(el("span", { class: "name" }, `${position + 1}. ${team.team}`));
      item.append(el("span", { class: "score" }, formatScore(team.collections[name])));
      list.append(item);
    });
    card.append(list);
    container.append(card);
  }
  document.getElementById("collections-section").hidden = false;
}

// ---- per-graph spread of one submission ---------------------------------------------------------

async function renderSpread(number) {
  const chart = document.getElementById("spread-chart");
  const summary = document.getElementById("spread-summary");
  let detail;
  try {
    detail = await fetchJson(`${detailsBase}${number}.json`);
  } catch (error) {
    chart.replaceChildren();
    summary.textContent = `No per-graph scores for submission ${number} (${error.message}).`;
    return;
  }
  const graphs = detail.graphs.filter((g) => !g.skipped);
  const collections = [...new Set(graphs.map((g) => g.collection))];
  const values = graphs.map((g) => g.score);
  let lo = minOf(values, 0), hi = maxOf(values, 1);
  const W = 900, rowH = 44, left = 170, right = 20, H = 30 + rowH * Math.max(1, collections.length);
  const x = (v) => left + (W - left - right) * (v - lo) / (hi - lo);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "per-graph scores" });
  for (const v of [lo, (lo + hi) / 2, hi]) {
    svg.append(svgEl("line", { x1: x(v), x2: x(v), y1: 5, y2: H - 20, stroke: "#e6e9ee" }));
    svg.append(svgEl("text", { x: x(v), y: H - 5, "font-size": 11, "text-anchor": "middle", fill: "#5f6b7a" }, v.toFixed(2)));
  }
  collections.forEach((name, row) => {
    const cy = 20 + row * rowH;
    svg.append(svgEl("text", { x: 8, y: cy + 4, "font-size": 12, fill: "#1d2330" }, name));
    graphs.filter((g) => g.collection === name).forEach((g, i) => {
      const dot = svgEl("circle", { cx: x(g.score), cy: cy + ((i * 7) % 15) - 7, r: 4, fill: PALETTE[row % PALETTE.length], "fill-opacity": 0.7, class: "graph-dot" });
      dot.append(svgEl("title", {}, `${g.id}: ${g.score.toFixed(4)}`));
      svg.append(dot);
    });
  });
  chart.replaceChildren(svg);
  const sorted = [...values].sort((a, b) => a - b);
  summary.textContent = graphs.length
    ? `${graphs.length} graphs scored: min ${sorted[0].toFixed(4)}, median ${sorted[Math.floor(sorted.length / 2)].toFixed(4)}, max ${sorted[sorted.length - 1].toFixed(4)}` +
      (detail.graphs.length > graphs.length ? `; ${detail.graphs.length - graphs.length} skipped (constant runtimes)` : "")
    : "No scored graphs in this submission's visible split.";
}

// The list offers each team's best submission and the latest ones, newest first: a <select> of
// every submission of a big competition (150,000 options) takes seconds to build and is no use.
const SPREAD_CHOICES_RECENT = 300;

function renderSpreadSelector(board) {
  const select = document.getElementById("submission-select");
  const scored = board.submissions.filter((s) => s.status === "scored");
  if (!scored.length) return;
  const bestNumbers = new Set(board.teams.map((t) => t.best_submission).filter((n) => n));
  const chosen = scored.filter((s, i) => bestNumbers.has(s.number) || i >= scored.length - SPREAD_CHOICES_RECENT).reverse();
  const options = document.createDocumentFragment();
  for (const s of chosen) {
    const score = board.board === "private" ? s.private : s.public;
    const label = `#${s.number} ${s.team} — ${s.timestamp} — ${formatScore(score)}${bestNumbers.has(s.number) ? " (team best)" : ""}`;
    options.append(el("option", { value: String(s.number) }, label));
  }
  select.replaceChildren(options);
  if (chosen.length < scored.length) {
    document.getElementById("spread-choices").textContent =
      `Each team's best and the latest ${SPREAD_CHOICES_RECENT} of ${scored.length} scored submissions.`;
  }
  const best = board.teams.length && board.teams[0].best_submission;
  if (best) select.value = String(best);
  select.addEventListener("change", () => renderSpread(select.value));
  document.getElementById("spread-section").hidden = false;
  return renderSpread(select.value);
}

// ---- what the board measures, and a reference board beside it -----------------------------------

// board.about: one line under the title. board.reference (scoring/reference_board.h): scores the
// organiser measured elsewhere (the demo: the same teams on real TPU measurements), one column per
// file with its metric and note; the best score of a column in bold.
function renderAbout(board) {
  if (!board.about) return;
  const about = document.getElementById("about");
  about.textContent = board.about;
  about.hidden = false;
}

function renderReference(board) {
  const reference = board.reference;
  if (!reference) return;
  document.getElementById("reference-title").textContent = reference.title;
  document.getElementById("reference-measures").textContent = reference.measures;
  const head = document.querySelector("#reference thead tr");
  head.replaceChildren(el("th", { class: "team" }, "Team"));
  for (const column of reference.columns) {
    const th = el("th", {}, column.name);
    th.append(el("small", {}, column.metric));
    if (column.note) th.append(el("small", {}, column.note));
    head.append(th);
  }
  const best = reference.columns.map((_, c) => maxOf(reference.rows.map((row) => row.scores[c]).filter((v) => v !== null)));
  const body = document.querySelector("#reference tbody");
  body.replaceChildren();
  for (const row of reference.rows) {
    const tr = el("tr");
    const name = el("td", { class: "team" }, row.team);
    if (row.note) name.append(el("small", { class: "muted" }, ` ${row.note}`));
    tr.append(name);
    row.scores.forEach((value, c) => {
      const td = el("td", { title: value === null ? "not measured" : String(value) }, formatScore(value));
      if (value !== null && value === best[c]) td.classList.add("best");
      tr.append(td);
    });
    body.append(tr);
  }
  document.getElementById("reference-section").hidden = false;
}

// ---- a live competition (graphcost-eval serve) ---------------------------------------------------

// The served board carries {"live": {title, deadline, version, app}}: the page names the
// competition, links the submission page, and reloads when the standings change (a new best
// score, a new team, the private board at the deadline); other new submissions only update the
// counts, so a busy competition does not reload the page every few seconds.
function showLive(board) {
  const { title, deadline } = board.live;
  const standings = (b) => JSON.stringify([b.board, b.teams.map((t) => [t.rank, t.team, t.score, t.best_submission])]);
  document.title = `${title} — leaderboard`;
  document.getElementById("title").textContent = title;
  const closes = deadline.replace("T", " ").replace("Z", " UTC");
  document.getElementById("board-summary").textContent +=
    board.board === "private" ? ` · closed at ${closes}` : ` · closes ${closes} · updates itself`;
  document.getElementById("live-links").hidden = false;
  document.getElementById("app-link").hidden = !board.live.app;
  document.getElementById("footer").textContent =
    "Served live by graphcost-eval serve. Tile: 2 − best-of-top-5 slowdown; layout: Kendall τ-b; overall: mean of the collections.";
  setInterval(async () => {
    try {
      const latest = await fetchJson(dataUrl);
      if (!latest.live) return;
      if (standings(latest) !== standings(board)) location.reload();
      else document.getElementById("board-summary").firstChild.textContent = document.getElementById("board-summary").firstChild.textContent
        .replace(/\d+ submissions/, `${latest.submissions.length} submissions`);
    } catch {
      // the server is away for a moment: keep the board shown
    }
  }, 10000);
}

// ---- main ---------------------------------------------------------------------------------------

async function main() {
  let board;
  try {
    board = await fetchJson(dataUrl);
  } catch (error) {
    document.getElementById("board-summary").textContent = "No leaderboard yet.";
    showMessage(`No leaderboard data could be loaded from ${dataUrl} (${error.message}).\n` +
      "Build it with: graphcost-eval leaderboard --solution SOLUTION --submissions DIR --out site/data");
    window.leaderboardState = { loaded: false, error: error.message };
    return;
  }
  if (board.format !== "graphcost-leaderboard-1" || !Array.isArray(board.teams)) {
    showMessage(`${dataUrl} is not graphcost leaderboard data (format: ${String(board.format)}).`);
    window.leaderboardState = { loaded: false, error: "bad format" };
    return;
  }
  document.getElementById("board-summary").textContent =
    `${board.board === "private" ? "Private (final)" : "Public"} board · ${board.teams.length} teams · ${board.submissions.length} submissions`;
  if (board.live) showLive(board);
  // Each section on its own: one that fails on odd data must not take the others with it.
  const failed = [];
  for (const [name, render] of [["about", renderAbout], ["standings", renderStandings], ["reference", renderReference], ["history", renderHistory],
    ["collections", renderCollectionTops], ["spread", renderSpreadSelector]]) {
    try {
      await render(board);
    } catch (error) {
      failed.push(`${name}: ${error.message}`);
    }
  }
  if (failed.length) showMessage(`Some sections could not be drawn (${failed.join("; ")}).`);
  window.leaderboardState = { loaded: true, teams: board.teams.length, failed };
}

main();
