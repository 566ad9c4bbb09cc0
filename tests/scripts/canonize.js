// Reads JSON-LD files with jsonld.js (toRDF) and canonicalizes each dataset
// with rdf-canonize (RDFC-1.0, SHA-256): the reference kld's `hash --plain` and
// `export --plain --canonical` are checked against and benchmarked with.
// Offline: the document loader refuses every URL.
//
// usage: node canonize.js BASE FILE...        prints each file's canonical N-Quads
//        node canonize.js --hash BASE FILE... prints `SHA256  FILE` lines
const path = require("path");
const fs = require("fs");
const crypto = require("crypto");
const modules = process.env.KLD_NODE_MODULES || path.join(__dirname, "../../target/node/node_modules");
const jsonld = require(path.join(modules, "jsonld"));
const canonize = require(path.join(modules, "rdf-canonize"));

const args = process.argv.slice(2);
const hashOnly = args[0] === "--hash";
if (hashOnly) args.shift();
const [base, ...files] = args;
const documentLoader = async (url) => {
  throw new Error(`refusing to fetch ${url}`);
};

(async () => {
  for (const f of files) {
    const doc = JSON.parse(fs.readFileSync(f, "utf8"));
    const dataset = await jsonld.toRDF(doc, { base, documentLoader });
    const nq = await canonize.canonize(dataset, { algorithm: "RDFC-1.0" });
    if (hashOnly) {
      process.stdout.write(crypto.createHash("sha256").update(nq).digest("hex") + "  " + f + "\n");
    } else {
      process.stdout.write(nq);
    }
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
