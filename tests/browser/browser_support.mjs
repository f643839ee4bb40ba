// Shared by the browser tests: a static file server on 127.0.0.1 and the browsers, both Debian's:
// - Chromium, headless on SwiftShader WebGL2, driven by playwright-core;
// - Firefox ESR, driven by puppeteer-core over WebDriver BiDi (playwright-core needs its own patched
//   Firefox). Firefox's headless mode on Linux has no WebGL without an X display (its glxtest probe
//   needs one), so it runs headless against a private Xvfb, on Mesa's llvmpipe.
// Neither package downloads a browser. GRAPHCOST_BROWSER=chromium|firefox picks the browser of the
// tests that run in both; their pages answer the Playwright calls the tests use.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve } from "node:path";
import { chromium } from "playwright-core";
import puppeteer from "puppeteer-core";

export const repoRoot = resolve(new URL("../..", import.meta.url).pathname);
export const artifactsDir = process.env.GRAPHCOST_TEST_ARTIFACTS || join(repoRoot, "test-artifacts");
mkdirSync(artifactsDir, { recursive: true });

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
                ".json": "application/json", ".wasm": "application/wasm", ".png": "image/png", ".npz": "application/octet-stream" };

// Serves `mounts` ({ "/": dir, "/data/": dir2 }) on 127.0.0.1 at a free port; returns { url, close }.
export async function serveStatic(mounts) {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url, "http://x").pathname);
    const prefix = prefixes.find((p) => path.startsWith(p));
    const root = resolve(mounts[prefix]);
    let file = normalize(join(root, path.slice(prefix.length)));
    if (!file.startsWith(root)) { response.writeHead(403).end(); return; }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file)) { response.writeHead(404).end("not found"); return; }
    response.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream" });
    response.end(readFileSync(file));
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) };
}

export const browserName = process.env.GRAPHCOST_BROWSER || "chromium";
if (!["chromium", "firefox"].includes(browserName)) throw new Error(`GRAPHCOST_BROWSER=${browserName}: expected chromium or firefox`);

// A screenshot's path in test-artifacts/: `name`.png for Chromium, `name`.firefox.png for Firefox.
export const artifact = (name) => join(artifactsDir, browserName === "chromium" ? `${name}.png` : `${name}.${browserName}.png`);

// A browser (GRAPHCOST_BROWSER's unless named) as { newPage({ width, height, deviceScaleFactor }), close() }.
export async function launchBrowser(name = browserName) {
  if (name === "chromium") {
    const browser = await launchChromium();
    return {
      newPage: ({ width, height, deviceScaleFactor = 1 }) => browser.newPage({ viewport: { width, height }, deviceScaleFactor }),
      close: () => browser.close(),
    };
  }
  return launchFirefox();
}

export async function launchChromium() {
  const executablePath = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((p) => existsSync(p));
  if (!executablePath) throw new Error("Debian chromium is not installed (scripts/setup.sh installs it)");
  return chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--disable-gpu-sandbox",
           "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-quic"],
  });
}

// A private X server for Firefox: Xvfb picks a free display and writes its number to stdout.
// It is stopped by stop(), and in any case when this process exits.
async function startXvfb() {
  const xvfb = spawn("Xvfb", ["-displayfd", "1", "-screen", "0", "1920x1080x24", "-nolisten", "tcp"], { stdio: ["ignore", "pipe", "pipe"] });
  const stop = () => { if (xvfb.exitCode === null) xvfb.kill(); };
  process.on("exit", stop);
  try {
    const display = await new Promise((done, fail) => {
      let text = "", errors = "";
      const timer = setTimeout(() => fail(new Error(`Xvfb gave no display number in 20 s: ${errors.trim()}`)), 20000);
      xvfb.stdout.on("data", (chunk) => {
        text += chunk;
        if (text.includes("\n")) {
          clearTimeout(timer);
          done(`:${text.trim()}`);
        }
      });
      xvfb.stderr.on("data", (chunk) => { errors += chunk; });
      xvfb.on("error", (error) => { clearTimeout(timer); fail(new Error(`Xvfb: ${error.message} (scripts/setup.sh installs xvfb)`)); });
      xvfb.on("exit", (code) => { clearTimeout(timer); fail(new Error(`Xvfb exited with ${code}: ${errors.trim()}`)); });
    });
    return { display, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

async function launchFirefox() {
  const executablePath = "/usr/bin/firefox-esr";
  if (!existsSync(executablePath)) throw new Error("Debian firefox-esr is not installed (scripts/setup.sh installs it)");
  const xvfb = await startXvfb();
  let browser;
  try {
    browser = await puppeteer.launch({ browser: "firefox", executablePath, headless: true, env: { ...process.env, DISPLAY: xvfb.display } });
  } catch (error) {
    xvfb.stop();
    throw error;
  }
  return {
    newPage: async ({ width, height, deviceScaleFactor = 1 }) => {
      const page = await browser.newPage();
      await page.setViewport({ width, height, deviceScaleFactor });
      return playwrightShaped(page, deviceScaleFactor);
    },
    close: async () => {
      try {
        await browser.close();
      } finally {
        xvfb.stop();
      }
    },
  };
}

// A puppeteer page answering the Playwright calls the tests make (the rest pass through).
function playwrightShaped(page, deviceScaleFactor) {
  const calls = {
    waitForFunction: (fn, arg, options = {}) => page.waitForFunction(fn, options, arg),
    waitForTimeout: (ms) => new Promise((done) => setTimeout(done, ms)),
    setViewportSize: ({ width, height }) => page.setViewport({ width, height, deviceScaleFactor }),
  };
  return new Proxy(page, {
    get: (target, name) => {
      if (name in calls) return calls[name];
      const value = target[name];
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

// A page of the app at `baseUrl`, ready (window.graphcost.ready), with the console errors and page
// errors it shows collected in `problems`.
export async function openAppPage(browser, baseUrl) {
  const page = await browser.newPage({ width: 1400, height: 900 });
  const problems = [];
  page.on("console", (message) => { if (message.type() === "error") problems.push(message.text()); });
  page.on("pageerror", (error) => problems.push(String(error)));
  await page.goto(`${baseUrl}/index.html`);
  await page.waitForFunction(() => window.graphcost && window.graphcost.ready, null, { timeout: 60000 });
  return { page, problems };
}

// Drops `url` (fetched by the page) on the canvas as a file called `name`, like a user would.
export async function dropUrl(page, url, name) {
  await page.evaluate(async ([fileUrl, fileName]) => {
    const bytes = await (await fetch(fileUrl)).arrayBuffer();
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], fileName));
    const canvas = document.getElementById("canvas");
    canvas.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    canvas.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, [url, name]);
}
