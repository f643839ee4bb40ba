// The live competition in headless Chromium: `graphcost-eval serve` on a generated tree, its
// submission page and leaderboard page. The in-browser pre-check shows line/column errors and sends
// nothing; a valid file is uploaded, scored, shown in "my submissions" and on the live board; a
// final pick is saved; a hostile team name stays text; the board's "about" line and reference
// board (set by `competition about`) are shown, as text. Screenshots kept in test-artifacts/.
// Run: GRAPHCOST_BIN=... GRAPHCOST_EVAL=... GRAPHCOST_APP_DIR=build/web/web node --test tests/browser/serve.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { artifactsDir, launchChromium, repoRoot } from "./browser_support.mjs";

const graphcost = process.env.GRAPHCOST_BIN || join(repoRoot, "build/native-release/src/graphcost");
const evalTool = process.env.GRAPHCOST_EVAL || join(repoRoot, "build/native-release/evaluation/graphcost-eval");
const appDir = process.env.GRAPHCOST_APP_DIR || join(repoRoot, "build/web/web");
const XSS_TEAM = "<img src=x onerror=alert(1)>";
if (!existsSync(join(appDir, "graphcost_validate.js"))) {
  console.log(`skipped: no WebAssembly build at ${appDir}/graphcost_validate.js (cmake --preset web && cmake --build --preset web)`);
  process.exit(0);
}

let work, server, browser, base, token, hostileToken;

async function freePort() {
  const probe = createServer();
  await new Promise((done) => probe.listen(0, "127.0.0.1", done));
  const { port } = probe.address();
  await new Promise((done) => probe.close(done));
  return port;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), "graphcost-serve-"));
  const run = (tool, ...args) => execFileSync(tool, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  run(graphcost, "gen", "--out", join(work, "tree"), "--graphs", "20", "--seed", "5", "--layout-configs", "60", "--quiet");
  const db = join(work, "comp.sqlite");
  run(evalTool, "competition", "init", "--db", db, "--solution", join(work, "tree", "solution_test.csv"),
      "--deadline", "2099-12-31T23:59:59Z", "--title", "Browser <b>test</b> cup", "--daily-cap", "3", "--finals", "1");
  token = run(evalTool, "competition", "team", "add", "--db", db, "alpha").trim().split(" ").pop();
  hostileToken = run(evalTool, "competition", "team", "add", "--db", db, XSS_TEAM).trim().split(" ").pop();
  run(evalTool, "baseline", "--data", join(work, "tree"), "--split", "test", "--strategy", "fewest-changes", "--out", join(work, "valid.csv"));
  // What the board measures, and a reference board beside it (the demo's: real TPU measurements).
  writeFileSync(join(work, "reference.json"), JSON.stringify({
    title: "Scores on real TPU measurements", measures: "Kendall tau-b on two real files.",
    columns: [{ name: "unet3d", metric: "Kendall tau-b", note: "trained on" }, { name: "unet_3d", metric: "Kendall tau-b", note: "held out" }],
    rows: [{ team: "alpha", scores: [0.25, null] }, { team: XSS_TEAM, scores: [0.5, -0.125], note: "a reference row" }] }));
  run(evalTool, "competition", "about", "--db", db, "--text", "The test split is <i>simulated</i>.", "--reference", join(work, "reference.json"));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(evalTool, ["serve", "--db", db, "--port", String(port), "--app", appDir], { stdio: ["ignore", "pipe", "pipe"] });
  await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error("serve did not start in 20 s")), 20000);
    server.stdout.on("data", (chunk) => { if (String(chunk).includes("on http://")) { clearTimeout(timer); done(); } });
    server.on("exit", (code) => fail(new Error(`serve exited with ${code}`)));
  });
  // The hostile team's entry, through the API as a script would send it.
  const response = await fetch(`${base}/api/submissions`, { method: "POST", headers: { Authorization: `Bearer ${hostileToken}` },
    body: readFileSync(join(work, "valid.csv")) });
  assert.equal(response.status, 202);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.kill("SIGTERM");
  if (work) rmSync(work, { recursive: true, force: true });
});

async function openPage(path) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1300 } });
  const problems = [], uploads = [];
  let dialogs = 0;
  page.on("console", (message) => { if (message.type() === "error") problems.push(message.text()); });
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("dialog", async (dialog) => { dialogs += 1; await dialog.dismiss(); });
  page.on("request", (request) => { if (request.method() === "POST") uploads.push(request.url()); });
  await page.goto(`${base}${path}`);
  return { page, problems, uploads, dialogs: () => dialogs };
}

test("the pre-check shows line/column errors in the browser and sends nothing", async () => {
  const { page, problems, uploads } = await openPage("/submit.html");
  await page.waitForFunction(() => window.submitPageState && window.submitPageState.validator === true, null, { timeout: 20000 });
  assert.equal(await page.textContent("#title"), "Browser <b>test</b> cup");
  await page.fill("#token", token);
  const valid = readFileSync(join(work, "valid.csv"), "utf8").trimEnd().split("\n");
  const broken = [valid[0], valid[1].replace(/,(\d+);/, ",$1;$1;"), ...valid.slice(2), "tile:xla:nope,1"].join("\n") + "\n";
  await page.fill("#paste", broken);
  await page.waitForFunction(() => window.submitPageState.checked === true);
  const state = await page.evaluate(() => window.submitPageState);
  assert.equal(state.valid, false);
  assert.deepEqual(state.errors.map((e) => e.line), [2, valid.length + 1]);
  assert.ok(state.errors[0].column > 1);
  const shown = await page.$$eval("#errors li", (items) => items.map((li) => li.textContent));
  assert.match(shown[0], /^line 2, column \d+: config index '\d+' listed twice/);
  assert.match(shown[1], /unknown ID 'tile:xla:nope'/);
  assert.match(shown[0], /\^/);  // the caret under the column
  assert.equal(await page.isDisabled("#upload"), true);
  assert.deepEqual(uploads, []);
  await page.screenshot({ path: join(artifactsDir, "serve-precheck.png"), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a valid file is uploaded, scored, listed, picked, and on the live board", async () => {
  const { page, problems } = await openPage("/submit.html");
  await page.waitForFunction(() => window.submitPageState && window.submitPageState.validator === true, null, { timeout: 20000 });
  await page.fill("#token", token);
  await page.setInputFiles("#file", join(work, "valid.csv"));
  await page.waitForFunction(() => window.submitPageState.checked === true && window.submitPageState.valid === true);
  assert.match(await page.textContent("#precheck"), /valid.csv is valid \(5 rows/);
  await page.click("#upload");
  await page.waitForFunction(() => window.submitPageState.lastUpload !== undefined);
  const upload = await page.evaluate(() => window.submitPageState.lastUpload);
  assert.equal(upload.status, 202);
  await page.waitForFunction((id) => (window.submitPageState.mine || []).some((s) => s.id === id && s.status === "scored"), upload.body.id,
    { timeout: 20000 });
  await page.check(`tr[data-id="${upload.body.id}"] input.pick`);
  await page.click("#save-finals");
  await page.waitForFunction((id) => window.submitPageState.mine.some((s) => s.id === id && s.picked), upload.body.id);
  assert.equal(await page.textContent("#finals-result"), `Saved: #${upload.body.id}.`);
  await page.screenshot({ path: join(artifactsDir, "serve-submit.png"), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();

  const board = await openPage("/");
  await board.page.waitForFunction(() => window.leaderboardState !== undefined, null, { timeout: 20000 });
  assert.equal(await board.page.evaluate(() => window.leaderboardState.loaded), true);
  const teams = await board.page.$$eval("#standings tbody tr td.team", (cells) => cells.map((td) => td.textContent));
  assert.deepEqual([...teams].sort(), [XSS_TEAM, "alpha"].sort());
  assert.equal(await board.page.locator("#standings img").count(), 0);
  assert.equal(await board.page.isVisible("#live-links"), true);
  assert.equal(await board.page.textContent("#title"), "Browser <b>test</b> cup");
  // The board says what it measures, and shows the reference scores beside it, as text.
  assert.equal(await board.page.textContent("#about"), "The test split is <i>simulated</i>.");
  assert.equal(await board.page.textContent("#reference-title"), "Scores on real TPU measurements");
  const reference = await board.page.$$eval("#reference tbody tr", (rows) => rows.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(reference, [["alpha", "0.2500", "–"], [`${XSS_TEAM} a reference row`, "0.5000", "-0.1250"]]);
  assert.deepEqual(await board.page.$$eval("#reference td.best", (cells) => cells.map((td) => td.textContent)), ["0.5000", "-0.1250"]);
  assert.match(await board.page.textContent("#reference thead"), /unet_3d\s*Kendall tau-b\s*held out/);
  assert.equal(await board.page.locator("#reference img, #about i").count(), 0);
  assert.equal(board.dialogs(), 0);
  await board.page.waitForFunction(() => document.querySelectorAll("#spread-chart circle.graph-dot").length > 0);
  await board.page.screenshot({ path: join(artifactsDir, "serve-leaderboard.png"), fullPage: true });
  assert.deepEqual(board.problems, []);
  await board.page.close();
});

test("the app at /app/ runs under the server's Content-Security-Policy", async () => {
  const response = await fetch(`${base}/app/index.html`);
  assert.match(response.headers.get("content-security-policy") || "", /script-src 'self' 'wasm-unsafe-eval'/);
  const app = await openPage("/app/index.html");
  await app.page.waitForFunction(() => window.graphcost && window.graphcost.ready, null, { timeout: 60000 }).catch((error) => {
    throw new Error(`${error.message}; page errors: ${JSON.stringify(app.problems)}`);
  });
  assert.deepEqual(app.problems.filter((text) => /Content Security Policy|Refused to/i.test(text)), []);
  await app.page.close();
});
