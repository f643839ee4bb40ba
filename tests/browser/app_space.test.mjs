// The browser app (web/app) with a kernel's parameter space dropped on it (web/app/viewer_space.cpp):
// a Kernel Tuner T4 file of the shared data opens instead of a graph, its parameters and outcomes
// in the left column, and the Tune panel replays its measurements with XGBoost or ridge on the
// parameters. Run: [GRAPHCOST_BROWSER=firefox] node --test tests/browser/app_space.test.mjs (after
// the web and native-release builds).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { artifact, dropUrl as drop, launchBrowser, openAppPage, repoRoot, serveStatic } from "./browser_support.mjs";

const appDir = process.env.GRAPHCOST_APP_DIR || join(repoRoot, "build/web/web");
const data = process.env.GRAPHCOST_DATA || join(repoRoot, "../shared/data");

if (!existsSync(join(data, "kernel-tuner"))) {
  console.log(`skipped: no TpuGraphs data (kernel-tuner/) at ${data} (set GRAPHCOST_DATA to the shared data folder)`);
  process.exit(0);
}
if (!existsSync(join(appDir, "graphcost_app.wasm"))) {
  console.log(`skipped: no WebAssembly build at ${appDir} (cmake --preset web && cmake --build --preset web)`);
  process.exit(0);
}

let server, browser;
before(async () => {
  server = await serveStatic({ "/": appDir, "/spaces/": join(data, "kernel-tuner") });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});
const openApp = () => openAppPage(browser, server.url);
const state = (page) => page.evaluate(() => window.graphcost.state());

test("a kernel's parameter space: its parameters in a table, the Tune panel on its measurements", async () => {
  const { page, problems } = await openApp();
  await drop(page, "/spaces/convolution/A100_T4.json.gz", "A100_T4.json.gz");
  await page.waitForFunction(() => window.graphcost.state().space, null, { timeout: 60000 });
  let s = await state(page);
  assert.equal(s.loaded, false, "no graph is shown for a space");
  assert.equal(s.space.configs, 4362);
  assert.equal(s.space.parameters.length, 10);
  assert.equal(s.space.outcomes.ok, 4201);
  await page.evaluate(() => window.graphcost.tune(30, 10));
  await page.waitForFunction(() => window.graphcost.state().tune && !window.graphcost.state().tune.running, null, { timeout: 120000 });
  s = await state(page);
  assert.equal(s.tune.measured.length, 30);
  assert.equal(s.tune.rounds.length, 3);
  assert.ok(s.tune.rounds[2].best_over_pool_best >= 1);
  assert.ok(["xgboost", "ridge"].includes(s.tune.learner.chosen), JSON.stringify(s.tune.learner));
  assert.ok(s.panels.some((p) => p.name === "Parameter space") && s.panels.some((p) => p.name === "Tune"), JSON.stringify(s.panels));
  console.log(`Tune panel on the A100 space: best measured / space's best ${s.tune.rounds[2].best_over_pool_best.toFixed(3)} after 30, ` +
              `${s.tune.learn_ms_per_round.toFixed(0)} ms fitting a round`);
  await page.screenshot({ path: artifact("app-space") });
  assert.deepEqual(problems, []);
  await page.close();
});
