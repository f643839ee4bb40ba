// The browser app on the 21,918-node nlp test graph in headless Chromium (SwiftShader WebGL2) and
// Firefox ESR (llvmpipe on Xvfb), on this machine's cores, no GPU: load, drawing and ranking times as
// the app reports them, frame times (the nested boxes at fit view and zoomed in, every node at fit
// view), opening and closing a box, and the download size; next to the
// native build's drawing and ranking of the same file measured in the same run (graphcost draw /
// bench_model). Then the largest shared HLO text module (Gemma 3 1B, 2.3 MB) dropped on the page:
// the time until it is imported in WebAssembly and drawn, next to the native `graphcost import`.
//   node bench/app_in_browser.mjs [file.npz]   (after the web and native-release builds)
//   GRAPHCOST_BENCH_BROWSERS=firefox node bench/app_in_browser.mjs   (one browser only)
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { join, dirname, basename } from "node:path";
import { launchBrowser, repoRoot, serveStatic } from "../tests/browser/browser_support.mjs";

const data = process.env.GRAPHCOST_DATA || join(repoRoot, "../shared/data");
const file = process.argv[2] || join(data, "tpugraphs/npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz");
const appDir = join(repoRoot, "build/web/web");
const native = join(repoRoot, "build/native-release");

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const hloModule = join(data, "hlo/gemma3_1b_flax_call.hlo");
const server = await serveStatic({ "/": appDir, "/bench/": dirname(file), "/hlo/": dirname(hloModule) });
const browsers = (process.env.GRAPHCOST_BENCH_BROWSERS || "chromium,firefox").split(",");
const results = {};
for (const name of browsers) {
  const browser = await launchBrowser(name);
  const page = await browser.newPage({ width: 1400, height: 900 });
  await page.goto(`${server.url}/index.html`);
  await page.waitForFunction(() => window.graphcost && window.graphcost.ready, null, { timeout: 60000 });
  const started = Date.now();
  await page.evaluate((url) => window.graphcost.fetchAndOpen(url, "bench.npz"), `/bench/${basename(file)}`);
  await page.waitForFunction(() => window.graphcost.state().ranking?.done, null, { timeout: 600000, polling: 500 });
  const wall = Date.now() - started;
  const s = await page.evaluate(() => window.graphcost.state());
  // Frame time with the whole graph drawn: requestAnimationFrame intervals over 3 s, every frame
  // drawn (an idle app keeps its last frame instead).
  const frameIntervals = () => page.evaluate(() => new Promise((done) => {
    const times = [];
    const tick = (t) => {
      times.push(t);
      window.graphcost.redraw();
      if (times.length < 400 && t - times[0] < 3000) requestAnimationFrame(tick); else done(times);
    };
    requestAnimationFrame(tick);
  }).then((times) => times.slice(1).map((t, i) => t - times[i])));
  // The app explains the pick right after ranking (background work between frames): frames are
  // timed once it is done.
  await page.waitForFunction(() => window.graphcost.state().explained_nodes !== undefined, null, { timeout: 300000, polling: 500 });
  // The app opens on the nested boxes (level of detail: a few dozen boxes, not 20k nodes).
  const intervals = await frameIntervals();
  // Opening and closing a box in place, three times each (state().boxes.last_toggle).
  const toggles = { open: [], close: [], placing: [] };
  const box = (await page.evaluate(() => window.graphcost.boxes()))[10];
  for (let i = 0; i < 3; i++) {
    for (const key of ["open", "close"]) {
      await page.evaluate((id) => window.graphcost.toggleBox(id), box.id);
      await page.waitForFunction((want) => window.graphcost.state().boxes.last_toggle?.opened === want, key === "open");
      const t = (await page.evaluate(() => window.graphcost.state())).boxes.last_toggle;
      toggles[key].push(t.ms);
      toggles.placing.push(t.layout_ms);
      await page.waitForTimeout(200);
    }
  }
  // Zoomed in on the boxes (4x the fit view), then every node of the layered drawing at its fit view.
  const fit = (await page.evaluate(() => window.graphcost.state())).view;
  await page.evaluate((v) => window.graphcost.setView(v.x, v.y, 4, true), fit);
  const zoomedIntervals = await frameIntervals();
  await page.evaluate(() => window.graphcost.setView(0, 0, 1, false));
  const everyFit = (await page.evaluate(() => window.graphcost.state())).view;
  await page.evaluate((v) => window.graphcost.setView(v.x, v.y, 1, false), { x: everyFit.x, y: everyFit.y });
  const everyIntervals = await frameIntervals();
  // An HLO text module dropped like a user's file: bytes in the page first, then the drop.
  let hloShown = NaN;
  if (statSync(hloModule, { throwIfNoEntry: false })) {
    await page.evaluate(async (url) => { window.benchBytes = await (await fetch(url)).arrayBuffer(); }, `/hlo/${basename(hloModule)}`);
    const dropped = Date.now();
    await page.evaluate((fileName) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([window.benchBytes], fileName));
      const canvas = document.getElementById("canvas");
      canvas.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, basename(hloModule));
    await page.waitForFunction((n) => { const st = window.graphcost.state(); return st.file === n && st.drawing?.done; }, basename(hloModule),
                               { timeout: 120000, polling: 20 });
    hloShown = Date.now() - dropped;
  }
  await browser.close();
  results[name] = { s, wall, intervals, zoomedIntervals, everyIntervals, toggles, hloShown };
}
await server.close();

const drawOut = execFileSync(join(native, "src/graphcost"), ["draw", file, "--repeat", "5"], { stdio: ["ignore", "pipe", "ignore"] }).toString();
const nativeDrawing = Number((drawOut.match(/drawn in ([0-9.]+) ms/) || [0, NaN])[1]);
const benchOut = JSON.parse(execFileSync(join(native, "bench/bench_model"), [file]).toString());
const size = (name) => statSync(join(appDir, name)).size;
const download = size("graphcost_app.wasm") + size("graphcost_app.js") + size("graphcost_app.data") + size("index.html") + size("app_page.js");

const first = results[browsers[0]].s;
console.log(execFileSync(join(native, "bench/bench_machine")).toString().trim());
console.log(`file: ${basename(file)}: ${first.nodes} nodes, ${first.edges} edges, ${first.configs} configs`);
console.log(`native drawing ${nativeDrawing} ms; native rank, 1 thread ${benchOut.rank_all_1thread_ms.toFixed(0)} ms (bench_model, same model code, no frames between)`);
for (const name of browsers) {
  const { s, wall, intervals, zoomedIntervals, everyIntervals, toggles } = results[name];
  console.log(`--- ${name} ---`);
  console.log(`load (WebAssembly)          ${s.load_ms.toFixed(0)} ms`);
  console.log(`drawing (WebAssembly)       ${s.drawing.ms.toFixed(1)} ms   ratio to native ${(s.drawing.ms / nativeDrawing).toFixed(1)}x`);
  console.log(`rank all configs (in app)   ${s.ranking.compute_ms.toFixed(0)} ms in the model; ${s.ranking.ms.toFixed(0)} ms wall with the frames drawn between slices (wall from drop ${wall} ms)`);
  console.log(`ranking ratio in-app wasm / native   ${(s.ranking.compute_ms / benchOut.rank_all_1thread_ms).toFixed(1)}x`);
  console.log(`frame interval (software GL, no GPU; goal 33 ms), medians: boxes at fit view ${median(intervals).toFixed(1)} ms, ` +
              `boxes zoomed 4x ${median(zoomedIntervals).toFixed(1)} ms, every node at fit view ${median(everyIntervals).toFixed(1)} ms`);
  console.log(`open a box ${median(toggles.open).toFixed(1)} ms, close it ${median(toggles.close).toFixed(1)} ms (medians of 3; goal 50 ms; ` +
              `of which placing the boxes ${median(toggles.placing).toFixed(1)} ms)`);
}
console.log(`download: ${(download / 1e6).toFixed(2)} MB (wasm ${(size("graphcost_app.wasm") / 1e6).toFixed(2)}, js ${(size("graphcost_app.js") / 1e3).toFixed(0)} KB, models ${(size("graphcost_app.data") / 1e3).toFixed(0)} KB), uncompressed`);
if (statSync(hloModule, { throwIfNoEntry: false })) {
  const started = Date.now();
  execFileSync(join(native, "src/graphcost"), ["import", hloModule, "--out", "/tmp/graphcost-bench-import.npz", "-q"], { stdio: "ignore" });
  const nativeImport = Date.now() - started;
  console.log(`HLO text dropped on the page: ${basename(hloModule)} (${(statSync(hloModule).size / 1e6).toFixed(1)} MB); ` +
              `native \`graphcost import\` (whole process, npz written) ${nativeImport} ms`);
  for (const name of browsers) console.log(`  ${name}: imported in WebAssembly and drawn ${results[name].hloShown} ms after the drop`);
}
