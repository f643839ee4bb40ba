// Shared by the browser tests: a static file server on 127.0.0.1 and a headless Debian Chromium
// driven by playwright-core (which never downloads a browser of its own).
import { createServer } from "node:http";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve } from "node:path";
import { chromium } from "playwright-core";

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
