// Called by test_wasm_validate.sh: broken copies of a valid submission, each checked by the native
// scorer (against the solution) and by the WebAssembly validator (against the public ID list only).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import assert from "node:assert/strict";

const [evalTool, validatorJs, solutionPath, validPath, work] = process.argv.slice(2);
const createGraphcostValidator = createRequire(import.meta.url)(resolve(validatorJs));
const validator = await createGraphcostValidator();

// The public ID list, as GET /api/ids serves it: ID and config count, no runtime.
const solutionRows = readFileSync(solutionPath, "utf8").trim().split("\n").slice(1).map((line) => line.split(","));
const ids = "ID,Configs\n" + solutionRows.map(([id, , runtimes]) => `${id},${runtimes.split(";").length}\n`).join("");
assert.doesNotMatch(ids, /Public|Private/);

function wasmCheck(bytes) {
  const encoder = new TextEncoder();
  const idBytes = encoder.encode(ids);
  const idPointer = validator._malloc(idBytes.length), subPointer = validator._malloc(Math.max(1, bytes.length));
  validator.HEAPU8.set(idBytes, idPointer);
  validator.HEAPU8.set(bytes, subPointer);
  const answer = JSON.parse(validator.UTF8ToString(validator._graphcost_validate(idPointer, idBytes.length, subPointer, bytes.length)));
  validator._free(idPointer);
  validator._free(subPointer);
  return answer;
}

function nativeCheck(bytes) {
  writeFileSync(`${work}/case.csv`, bytes);
  try {
    execFileSync(evalTool, ["score", "--solution", solutionPath, "--submission", `${work}/case.csv`, "--json", `${work}/case.json`], { stdio: "ignore" });
  } catch (error) {
    if (error.status !== 2) throw error;
  }
  return JSON.parse(readFileSync(`${work}/case.json`, "utf8"));
}

const valid = readFileSync(validPath, "utf8");
const lines = valid.trimEnd().split("\n");
const layoutLine = lines.findIndex((line) => line.startsWith("layout:"));
const tileLine = lines.findIndex((line) => line.startsWith("tile:"));
const swapped = (line, edit) => lines.map((text, i) => (i === line ? edit(text) : text)).join("\n") + "\n";
const cases = {
  "valid": valid,
  "valid with a BOM and CRLF line ends": "\ufeff" + lines.join("\r\n") + "\r\n",
  "empty": "",
  "a wrong header": valid.replace("ID,TopConfigs", "Id,Top"),
  "an unknown ID": swapped(layoutLine, (text) => "layout:xla:random:nope" + text.slice(text.indexOf(","))),
  "a row twice": valid + lines[layoutLine] + "\n",
  "a missing row": lines.filter((_, i) => i !== tileLine).join("\n") + "\n",
  "a layout config twice": swapped(layoutLine, (text) => text.replace(/,(\d+);(\d+);/, ",$1;$1;")),
  "a layout row cut short": swapped(layoutLine, (text) => text.slice(0, text.lastIndexOf(";"))),
  "a config index out of range": swapped(tileLine, (text) => text.replace(/,\d+/, ",99999999")),
  "a non-number": swapped(tileLine, (text) => text.replace(/,\d+/, ",x7")),
  "a negative index": swapped(layoutLine, (text) => text.replace(/,\d+/, ",-1")),
  "binary junk": "ID,TopConfigs\n\u0000\u0001\u00ff,1\n",
  "many errors": lines[0] + "\n" + Array.from({ length: 40 }, (_, i) => `bad:${i},1`).join("\n") + "\n",
};
let compared = 0;
for (const [name, text] of Object.entries(cases)) {
  const bytes = new TextEncoder().encode(text);
  const wasm = wasmCheck(bytes), native = nativeCheck(bytes);
  assert.equal(wasm.error, undefined, `${name}: ${wasm.error}`);
  assert.equal(wasm.valid, native.status === "scored", `${name}: valid in the browser <=> scored natively`);
  if (!wasm.valid) {
    assert.equal(wasm.error_count, native.error_count, `${name}: error count`);
    assert.deepEqual(wasm.errors, native.errors, `${name}: errors`);
  }
  console.log(`ok   ${name}: ${wasm.valid ? "valid" : `${wasm.error_count} error(s), first: line ${wasm.errors[0].line}, column ${wasm.errors[0].column}: ${wasm.errors[0].message}`}`);
  compared += 1;
}
const badList = validator._malloc(8);
validator.HEAPU8.set(new TextEncoder().encode("ID,Nope\n"), badList);
const refused = JSON.parse(validator.UTF8ToString(validator._graphcost_validate(badList, 8, badList, 0)));
assert.match(refused.error, /public ID list.*header 'ID,Configs'/);
console.log(`ok   a malformed ID list is refused: ${refused.error}`);
console.log(`${compared} submissions: the browser's validator gives the native scorer's errors`);
