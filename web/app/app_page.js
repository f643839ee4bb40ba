// The page around the WebAssembly app: it fetches files (demos, ?file=) and picked files into the
// in-memory file system and asks the app to open them. window.graphcost is the small JS API the
// browser tests (tests/browser/app.test.mjs) and scripts use; docs/browser-app.md describes it.
"use strict";
const statusLine = document.getElementById("status");
// The URL the shown file was fetched from (null for a picked or dropped file, which no link can
// reproduce), a ?config= to select once the ranking is done, and a ?view= (x,y,zoom[,g]: the
// centre in drawing units, the zoom relative to the fit view, g for the grouped view) to apply once
// the drawing is done.
let shownUrl = null, pendingConfig = null, pendingView = null;
function writeAndOpen(name, bytes, url = null) {
  shownUrl = url;
  const path = "/uploads/" + name.replace(/[^A-Za-z0-9._-]/g, "_");
  Module.FS.mkdirTree("/uploads");
  Module.FS.writeFile(path, new Uint8Array(bytes));
  return Module.ccall("graphcost_app_open", "number", ["string", "string"], [path, name]) === 1;
}
var Module = {
  canvas: document.getElementById("canvas"),
  print: (text) => console.log(text),
  printErr: (text) => console.warn(text),
  graphcostFetch: async (url, name) => {
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return writeAndOpen(name || url.split("/").pop(), await response.arrayBuffer(), url);
    } catch (error) {
      console.warn(`could not fetch ${url}: ${error.message}`);
      return false;
    }
  },
  graphcostPickFile: () => document.getElementById("picker").click(),
  graphcostReady: async () => {
    statusLine.classList.add("hidden");
    let demos = [];
    try {
      const response = await fetch("demos/index.json");
      if (response.ok) {
        const text = await response.text();
        Module.ccall("graphcost_app_set_demos", null, ["string"], [text]);
        const list = JSON.parse(text);
        if (Array.isArray(list)) demos = list;
      }
    } catch (error) { /* no demos next to the app: fine */ }
    // A link's file and config; without one, the demo marked default: a graph on arrival.
    const params = new URLSearchParams(location.search);
    if (/^\d+$/.test(params.get("config") || "")) pendingConfig = Number(params.get("config"));
    const view = /^(-?[\d.]+),(-?[\d.]+),([\d.]+)(,g)?$/.exec(params.get("view") || "");
    if (view) pendingView = { x: Number(view[1]), y: Number(view[2]), zoom: Number(view[3]), grouped: Boolean(view[4]) };
    // The nested view: the open boxes and the box at the centre (ids from the file's own grouping).
    if (pendingView && pendingView.grouped) {
      pendingView.open = /^[\d.]*$/.test(params.get("open") || "") ? params.get("open") || "" : "";
      pendingView.box = /^\d+$/.test(params.get("box") || "") ? Number(params.get("box")) : -1;
    }
    const arrival = params.get("file") ? { url: params.get("file") } : demos.find((demo) => demo.default);
    if (arrival) await Module.graphcostFetch(arrival.url, arrival.name);
    setInterval(followState, 500);
    window.graphcost.ready = true;
  },
};
// Keeps the address bar a link to what is shown (?file=, ?config=, ?view=, and in the nested view
// ?open= and ?box=) and applies a link's
// view once the drawing is done and its config once the ranking is done.
function followState() {
  const state = window.graphcost.state();
  if (!state.loaded) return;
  if (pendingView !== null && state.drawing && state.drawing.done) {
    if (pendingView.grouped && (pendingView.open || pendingView.box >= 0)) {
      window.graphcost.setBoxView(pendingView.open, pendingView.box, pendingView.zoom);
    } else {
      window.graphcost.setView(pendingView.x, pendingView.y, pendingView.zoom, pendingView.grouped);
    }
    pendingView = null;
    return;  // the next poll writes the address from the view now shown
  }
  if (pendingConfig !== null && state.ranking && state.ranking.done) {
    if (pendingConfig < state.configs) window.graphcost.selectConfig(pendingConfig);
    pendingConfig = null;
  }
  const params = new URLSearchParams();
  if (shownUrl) params.set("file", shownUrl);
  if (shownUrl && state.selected_config >= 0) params.set("config", String(state.selected_config));
  if (shownUrl && state.view && pendingView === null) {
    const v = state.view;
    params.set("view", `${v.x.toFixed(1)},${v.y.toFixed(1)},${v.zoom.toFixed(3)}${v.grouped ? ",g" : ""}`);
    if (v.grouped && v.open.length) params.set("open", v.open.join("."));
    if (v.grouped && v.box >= 0) params.set("box", String(v.box));
  }
  const search = params.toString() ? `?${params}` : "";
  if (search !== location.search) history.replaceState(null, "", `${location.pathname}${search}`);
}
document.getElementById("picker").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (file) writeAndOpen(file.name, await file.arrayBuffer());
  event.target.value = "";
});
window.graphcost = {
  ready: false,
  state: () => JSON.parse(Module.UTF8ToString(Module._graphcost_app_state_json())),
  open: (name, bytes) => writeAndOpen(name, bytes),
  fetchAndOpen: (url, name) => Module.graphcostFetch(url, name),
  nodePosition: (node) => JSON.parse(Module.UTF8ToString(Module._graphcost_app_node_position_json(node))),
  selectConfig: (config) => Module._graphcost_app_select_config(config),
  // The Tune panel: replay rounds of graphcost tune on the open labelled file; state().tune follows them.
  tune: (budget, perRound, learner = "auto") => Module.ccall("graphcost_app_tune", null, ["number", "number", "string"], [budget, perRound, learner]),
  stopTune: () => Module._graphcost_app_stop_tune(),
  // The view a link keeps: centre in drawing units, zoom relative to the fit view, grouped or not.
  setView: (x, y, zoom, grouped) => Module._graphcost_app_set_view(x, y, zoom, grouped ? 1 : 0),
  // The nested view's boxes as drawn ({id, title, nodes, open, x, y, top, width, height, contents,
  // cost}, CSS pixels from the canvas' top-left), and opening or closing one.
  boxes: () => JSON.parse(Module.UTF8ToString(Module._graphcost_app_boxes_json())),
  toggleBox: (id) => Module._graphcost_app_toggle_box(id),
  // A link's nested view: open boxes ("3.17", outermost first), the box to centre on, zoom.
  setBoxView: (open, box, zoom) => Module.ccall("graphcost_app_set_box_view", null, ["string", "number", "number"], [open, box, zoom]),
  stopDrawing: (keepRough) => Module._graphcost_app_stop_drawing(keepRough ? 1 : 0),
  holdDrawing: (hold) => Module._graphcost_app_hold_drawing(hold ? 1 : 0),
  redraw: () => Module._graphcost_app_redraw(),
  // Nodes matching an id, an instruction name, a name part, an op_name prefix or an opcode:
  // [{node, opcode, name, computation, op_name}] (names only for imported HLO).
  findNodes: (text) => JSON.parse(Module.UTF8ToString(Module.ccall("graphcost_app_find_nodes_json", "number", ["string"], [text]))),
};

// The canvas's own right-click menu (ImGui uses the right button). An attribute handler would be
// inline script, which the server's Content-Security-Policy refuses.
document.getElementById("canvas").addEventListener("contextmenu", (event) => event.preventDefault());
