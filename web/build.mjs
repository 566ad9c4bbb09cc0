// Builds the page's editor bundle: web/src → crates/serve/src/page/editor.bundle.js
// (one minified IIFE, no source map, no timestamps: the same inputs give the
// same bytes, which .ci/run checks), and beside it the licences of every
// package whose code went into it (editor.bundle.LICENSES.txt).
import { build } from "esbuild";
import { readFileSync, writeFileSync, readdirSync, existsSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "crates", "serve", "src", "page");

const result = await build({
  entryPoints: [join(here, "src", "index.js")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  charset: "utf8",
  legalComments: "none",
  metafile: true,
  write: false,
  logLevel: "warning",
});
const bundle = result.outputFiles[0].contents;
writeFileSync(join(out, "editor.bundle.js"), bundle);

// The packages behind the bundle's inputs, each with its licence text.
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const parts = relative(here, join(here, input)).split(sep);
  const at = parts.indexOf("node_modules");
  if (at < 0) continue;
  const name = parts[at + 1].startsWith("@") ? parts.slice(at + 1, at + 3).join("/") : parts[at + 1];
  const dir = join(here, "node_modules", ...name.split("/"));
  if (packages.has(name)) continue;
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).sort().find((f) => /^licen[cs]e/i.test(f));
  if (!file || !existsSync(join(dir, file))) throw new Error(`${name}: no licence file`);
  packages.set(name, { version: meta.version, license: meta.license, text: readFileSync(join(dir, file), "utf8").trim() });
}
const names = [...packages.keys()].sort();
let text = "Third-party software in editor.bundle.js (the SPARQL editor of kld serve's page),\n" +
  "built from web/package-lock.json by web/build.mjs. Each package's licence follows.\n";
for (const name of names) {
  const p = packages.get(name);
  text += `\n${"=".repeat(72)}\n${name} ${p.version} (${p.license})\n${"=".repeat(72)}\n\n${p.text}\n`;
}
writeFileSync(join(out, "editor.bundle.LICENSES.txt"), text);
console.log(`editor.bundle.js: ${bundle.length} bytes from ${names.length} packages`);
