// The leaderboard page in headless Chromium, on data built by graphcost-eval from the shared files:
// no console errors, ranks as in leaderboard.json, a hostile team name shown literally and inert,
// sorting, the per-graph spread, and a clear message when data is missing. Screenshot kept.
// Run: GRAPHCOST_EVAL=build/native-release/evaluation/graphcost-eval node --test tests/browser/
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { artifactsDir, launchChromium, repoRoot, serveStatic } from "./browser_support.mjs";

const evalTool = process.env.GRAPHCOST_EVAL || join(repoRoot, "build/native-release/evaluation/graphcost-eval");
const data = process.env.GRAPHCOST_DATA || join(repoRoot, "../shared/data");
const XSS_TEAM = "<img src=x onerror=alert(1)>";
if (!existsSync(join(data, "tpugraphs"))) {
  console.log(`skipped: no TpuGraphs data at ${data} (set GRAPHCOST_DATA to the shared data folder)`);
  process.exit(0);
}

let work, server, browser, board;

before(async () => {
  work = mkdtempSync(join(tmpdir(), "graphcost-site-"));
  const tree = join(data, "tpugraphs");
  const run = (...args) => execFileSync(evalTool, args, { stdio: "pipe" });
  run("make-solution", "--data", tree, "--split", "train,valid", "--seed", "1", "--out", join(work, "solution.csv"));
  const entries = [
    ["alpha", "first", "2023-11-01T09-00-00Z"], ["bravo", "random", "2023-11-01T10-00-00Z"],
    ["bravo", "fewest-changes", "2023-11-02T10-00-00Z"], [XSS_TEAM, "fewest-changes", "2023-11-01T11-00-00Z"],
    ["delta", "reverse", "2023-11-03T08-00-00Z"],
  ];
  for (const [team, strategy, stamp] of entries) {
    mkdirSync(join(work, "subs", team), { recursive: true });
    run("baseline", "--data", tree, "--split", "train,valid", "--strategy", strategy, "--seed", "7",
        "--out", join(work, "subs", team, `${stamp}.csv`));
  }
  copyFileSync(join(tree, "sample_submission.csv"), join(work, "subs", "delta", "2023-11-03T09-00-00Z.csv"));  // invalid here
  run("leaderboard", "--solution", join(work, "solution.csv"), "--submissions", join(work, "subs"), "--out", join(work, "data"));
  board = JSON.parse(readFileSync(join(work, "data", "leaderboard.json"), "utf8"));
  server = await serveStatic({ "/": join(repoRoot, "site"), "/data/": join(work, "data") });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function openPage(query = "") {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  const problems = [];
  let dialogs = 0;
  page.on("console", (message) => { if (message.type() === "error") problems.push(message.text()); });
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("dialog", async (dialog) => { dialogs += 1; await dialog.dismiss(); });
  await page.goto(`${server.url}/index.html${query}`);
  await page.waitForFunction(() => window.leaderboardState !== undefined, null, { timeout: 20000 });
  return { page, problems, dialogs: () => dialogs };
}

test("the leaderboard renders the generated data without console errors", async () => {
  const { page, problems, dialogs } = await openPage();
  assert.equal(await page.evaluate(() => window.leaderboardState.loaded), true);
  const rows = await page.$$eval("#standings tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.equal(rows.length, board.teams.length);
  assert.equal(rows.length, 4);
  rows.forEach((cells, index) => {
    assert.equal(cells[0], String(board.teams[index].rank));
    assert.equal(cells[1], board.teams[index].team);
    assert.equal(cells[2], board.teams[index].score === null ? "–" : board.teams[index].score.toFixed(4));
  });
  assert.deepEqual(board.teams.map((t) => t.rank), [1, 2, 3, 4]);
  await page.screenshot({ path: join(artifactsDir, "site-leaderboard.png"), fullPage: true });
  assert.deepEqual(problems, []);
  assert.equal(dialogs(), 0);
  await page.close();
});

test("a hostile team name appears literally and runs nothing", async () => {
  const { page, problems, dialogs } = await openPage();
  const names = await page.$$eval("td.team", (cells) => cells.map((c) => c.textContent));
  assert.ok(names.includes(XSS_TEAM), `team cells: ${JSON.stringify(names)}`);
  assert.equal(await page.$$eval("img", (images) => images.length), 0);
  const legend = await page.$$eval("#history-chart text", (texts) => texts.map((t) => t.textContent));
  assert.ok(legend.some((text) => text.startsWith("<img")), "the history legend shows the name as text");
  await page.waitForTimeout(300);
  assert.equal(dialogs(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("clicking a column sorts by it", async () => {
  const { page } = await openPage();
  await page.click("th[data-key=team]");
  const names = await page.$$eval("td.team", (cells) => cells.map((c) => c.textContent));
  const expected = [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  assert.deepEqual(names.map((n) => n.toLowerCase()), [...names.map((n) => n.toLowerCase())].sort());
  assert.equal(names.length, expected.length);
  await page.click("th[data-key=score]");
  const scores = await page.$$eval("#standings tbody tr td:nth-child(3)", (cells) => cells.map((c) => Number(c.title)));
  assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
  await page.close();
});

test("the per-graph spread of the best submission shows its public graphs", async () => {
  const { page } = await openPage();
  const best = board.teams[0].best_submission;
  const detail = JSON.parse(readFileSync(join(work, "data", "details", `${best}.json`), "utf8"));
  const expected = detail.graphs.filter((g) => !g.skipped).length;
  await page.waitForFunction((n) => document.querySelectorAll("#spread-chart circle.graph-dot").length === n, expected);
  assert.ok(expected > 0);
  assert.ok(detail.graphs.every((g) => g.usage === "Public"));
  const summary = await page.textContent("#spread-summary");
  assert.match(summary, new RegExp(`^${expected} graphs scored`));
  await page.close();
});

test("a foreign ?data= URL is ignored in favour of the site's own data", async () => {
  const { page } = await openPage("?data=https://example.invalid/leaderboard.json");
  assert.equal(await page.evaluate(() => window.leaderboardState.loaded), true);
  assert.equal(await page.evaluate(() => window.leaderboardState.teams), board.teams.length);
  await page.close();
});

test("missing data gives a clear message", async () => {
  const { page } = await openPage("?data=missing/leaderboard.json");
  assert.equal(await page.evaluate(() => window.leaderboardState.loaded), false);
  assert.equal(await page.isVisible("#message"), true);
  assert.match(await page.textContent("#message"), /No leaderboard data could be loaded from missing\/leaderboard\.json/);
  assert.equal(await page.isVisible("#standings-section"), false);
  await page.close();
});

test("a board of 150,000 submissions with a bad timestamp draws every section", async () => {
  // Math.min(...values) overflowed the call stack past ~100k values, and one unparsable timestamp
  // hid the history and everything after it.
  const teams = Array.from({ length: 50 }, (_, i) => ({
    rank: i + 1, team: `team-${i}`, score: 0.5 - i / 1000, collections: {}, entries: 3000, failed: 0,
    last_submission: "2023-11-30T00:00:00Z", best_submission: i + 1,
  }));
  const submissions = Array.from({ length: 150000 }, (_, i) => ({
    number: i + 1, team: `team-${i % 50}`, status: "scored", public: (i % 997) / 2000,
    timestamp: new Date(Date.UTC(2023, 10, 1) + i * 1000).toISOString().replace(/\.\d+Z$/, "Z"),
  }));
  submissions[7].timestamp = "0000-02-31T00:00:60Z";
  mkdirSync(join(work, "data", "big"), { recursive: true });
  writeFileSync(join(work, "data", "big", "leaderboard.json"), JSON.stringify({
    format: "graphcost-leaderboard-1", board: "public", collections: board.collections, teams, submissions,
  }));
  mkdirSync(join(work, "data", "big", "details"), { recursive: true });
  writeFileSync(join(work, "data", "big", "details", "1.json"), JSON.stringify({ graphs: [] }));
  const { page, problems } = await openPage("?data=data/big/leaderboard.json");
  assert.deepEqual(await page.evaluate(() => window.leaderboardState), { loaded: true, teams: 50, failed: [] });
  assert.deepEqual(problems, []);
  assert.equal(await page.locator("#history-chart svg polyline").count() > 0, true);
  // Every team's scores rise and fall (i % 997): its markers are its improvements only, all in one
  // path per team, and the submission list holds each team's best plus the latest 300.
  assert.equal(await page.locator("#history-chart svg path.improvements").count(), 10);
  assert.equal(await page.locator("#history-chart svg circle").count(), 0);
  const options = await page.locator("#submission-select option").count();
  assert.ok(options >= 300 && options <= 350, `${options} options`);
  assert.match(await page.textContent("#spread-choices"), /latest 300 of 150000 scored submissions/);
  await page.close();
});
