// The page around the WebAssembly app: it fetches files (demos, ?file=) and picked files into the
// in-memory file system and asks the app to open them. window.graphcost is the small JS API the
// browser tests (tests/browser/app.test.mjs) and scripts use; docs/browser-app.md describes it.
"use strict";
const statusLine = document.getElementById("status");
function writeAndOpen(name, bytes) {
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
      return writeAndOpen(name || url.split("/").pop(), await response.arrayBuffer());
    } catch (error) {
      console.warn(`could not fetch ${url}: ${error.message}`);
      return false;
    }
  },
  graphcostPickFile: () => document.getElementById("picker").click(),
  graphcostReady: async () => {
    statusLine.classList.add("hidden");
    try {
      const response = await fetch("demos/index.json");
      if (response.ok) Module.ccall("graphcost_app_set_demos", null, ["string"], [await response.text()]);
    } catch (error) { /* no demos next to the app: fine */ }
    const file = new URLSearchParams(location.search).get("file");
    if (file) await Module.graphcostFetch(file);
    window.graphcost.ready = true;
  },
};
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
