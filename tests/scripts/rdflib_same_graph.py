"""Reads an N-Triples or N-Quads file with rdflib and says whether it holds
the same dataset as a reference given as JSON (what another reader parsed):

    python3 rdflib_same_graph.py FORMAT FILE REFERENCE.json

FORMAT is nt or nquads. REFERENCE.json is a list of quads [s, p, o, g],
each term {"iri": ...}, {"bnode": ...} or {"literal": ..., "datatype": ...,
"lang": ...}; g is null for the default graph. Prints JSON: how many
triples (or quads) rdflib read, the reference's count, and whether each
graph is isomorphic to the reference's (rdflib.compare.isomorphic).
"""
import json
import sys

import rdflib
from rdflib.compare import isomorphic

fmt, path, ref_path = sys.argv[1:4]


def term(t):
    if "iri" in t:
        return rdflib.URIRef(t["iri"])
    if "bnode" in t:
        return rdflib.BNode(t["bnode"])
    if t.get("lang"):
        return rdflib.Literal(t["literal"], lang=t["lang"])
    if t["datatype"] == str(rdflib.XSD.string):
        # rdflib reads a simple literal without a datatype.
        return rdflib.Literal(t["literal"])
    return rdflib.Literal(t["literal"], datatype=rdflib.URIRef(t["datatype"]))


ref = json.load(open(ref_path, encoding="utf-8"))
want = {}
for s, p, o, g in ref:
    key = None if g is None else g["iri"]
    want.setdefault(key, rdflib.Graph()).add((term(s), term(p), term(o)))

got = {}
if fmt == "nquads":
    ds = rdflib.Dataset()
    ds.parse(path, format="nquads")
    n = 0
    for s, p, o, g in ds.quads((None, None, None, None)):
        key = None if g is None or g == rdflib.graph.DATASET_DEFAULT_GRAPH_ID else str(g)
        got.setdefault(key, rdflib.Graph()).add((s, p, o))
        n += 1
else:
    g = rdflib.Graph()
    g.parse(path, format=fmt)
    n = len(g)
    got[None] = g

same = set(got) == set(want) and all(isomorphic(got[k], want[k]) for k in want)
print(json.dumps({"read": n, "reference": len(ref), "isomorphic": same,
                  "graphs": sorted(str(k) for k in got)}))
