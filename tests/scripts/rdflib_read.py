"""Reads RDF files with rdflib (an independent reader) and prints, as JSON,
each file's triple count and the literal values holding a carriage return:

    python3 rdflib_read.py FORMAT FILE...

FORMAT is an rdflib parser name (xml, json-ld, turtle, nt).
"""
import json
import sys

import rdflib

fmt, files = sys.argv[1], sys.argv[2:]
out = {}
for f in files:
    g = rdflib.Graph()
    g.parse(f, format=fmt)
    out[f] = {
        "triples": len(g),
        "cr": sorted(str(o) for _, _, o in g if isinstance(o, rdflib.Literal) and "\r" in str(o)),
    }
print(json.dumps(out))
