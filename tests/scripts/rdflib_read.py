"""Reads RDF files with rdflib (an independent reader) and prints, as JSON,
each file's triple count and the literal values holding a carriage return:

    python3 rdflib_read.py FORMAT FILE...

FORMAT is an rdflib parser name (xml, json-ld, turtle, nt, nquads, trig).
Dataset formats (nquads, trig) are read into a Dataset: "triples" counts its
quads, and "graphs" maps each graph name to a digest of the graph's
canonical form (blank nodes relabelled by rdflib.compare), so that two files
holding the same dataset give the same map.
"""
import hashlib
import json
import sys

import rdflib
from rdflib.compare import to_canonical_graph

fmt, files = sys.argv[1], sys.argv[2:]
out = {}
for f in files:
    if fmt in ("nquads", "trig"):
        ds = rdflib.Dataset()
        ds.parse(f, format=fmt)
        quads = list(ds.quads((None, None, None, None)))
        graphs = {}
        for g in ds.graphs():
            if len(g) == 0:
                continue
            lines = sorted(to_canonical_graph(g).serialize(format="nt").splitlines())
            name = str(g.identifier)
            graphs[name] = hashlib.sha256("\n".join(lines).encode()).hexdigest()
        out[f] = {
            "triples": len(quads),
            "graphs": graphs,
            "cr": sorted(str(q[2]) for q in quads if isinstance(q[2], rdflib.Literal) and "\r" in str(q[2])),
        }
        continue
    g = rdflib.Graph()
    g.parse(f, format=fmt)
    out[f] = {
        "triples": len(g),
        "cr": sorted(str(o) for _, _, o in g if isinstance(o, rdflib.Literal) and "\r" in str(o)),
    }
print(json.dumps(out))
