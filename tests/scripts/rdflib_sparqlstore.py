"""rdflib over kld serve's endpoint (SPARQLStore): prints what a Graph and a
Dataset over it answer, one `name value` line each, for crates/cli/tests/cli/manners.rs.
Usage: rdflib_sparqlstore.py ENDPOINT"""
import sys
import warnings

import rdflib
from rdflib.plugins.stores.sparqlstore import SPARQLStore

warnings.simplefilter("ignore")
endpoint = sys.argv[1]
q = "SELECT ?q WHERE { ?q a <https://schema.org/Question> }"
store = SPARQLStore(endpoint)
print("graph_rows", len(list(rdflib.Graph(store=store).query(q))))
ds = rdflib.Dataset(store=store)
print("dataset_rows", len(list(ds.query(q))))
for name in ("graphs", "contexts"):
    try:
        print(name, len(list(getattr(ds, name)())))
    except Exception as e:  # what the manual reports
        print(name, "raises", type(e).__name__ + ":", e)
