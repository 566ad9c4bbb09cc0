"""Reads a JSON-LD file with pyld (offline: no document loader) and prints its
N-Quads. Used by the tests to check kld's compacted JSON-LD with a processor
written elsewhere."""
import sys

from pyld import jsonld


def no_remote(url, options=None):
    raise RuntimeError(f"refusing to fetch {url}")


jsonld.set_document_loader(no_remote)
with open(sys.argv[1], encoding="utf-8") as f:
    import json

    doc = json.load(f)
sys.stdout.write(jsonld.to_rdf(doc, {"format": "application/n-quads"}))
