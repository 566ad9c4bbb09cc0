"""Asks kld serve one SELECT and one CONSTRUCT in every return format
SPARQLWrapper has (GET and POST), and through rdflib's SPARQLStore; prints
one JSON object: for each client and format, the row or triple count it
parsed, or the error it met."""
import json
import sys

from rdflib import Graph

from SPARQLWrapper import (CSV, GET, JSON, JSONLD, N3, POST, RDF, RDFXML, TSV,
                           TURTLE, XML, SPARQLWrapper)

endpoint = sys.argv[1]
select = "SELECT ?name WHERE { ?f a <https://schema.org/DataFeed> ; <https://schema.org/name> ?name }"
construct = ("CONSTRUCT { ?f <https://schema.org/name> ?name } WHERE "
             "{ ?f a <https://schema.org/DataFeed> ; <https://schema.org/name> ?name }")
out = {}


def count(result, fmt):
    """Rows or triples in what SPARQLWrapper's convert() returned."""
    if fmt == JSON:
        return len(result["results"]["bindings"]) if "results" in result else len(result)
    if fmt in (CSV, TSV):
        text = result.decode() if isinstance(result, bytes) else result
        return len([l for l in text.splitlines() if l.strip()]) - 1
    if fmt == XML:
        return len(result.getElementsByTagName("result"))
    return len(result)  # an rdflib Graph


for method in (GET, POST):
    for fmt in (JSON, XML, CSV, TSV):
        sw = SPARQLWrapper(endpoint)
        sw.setMethod(method)
        sw.setQuery(select)
        sw.setReturnFormat(fmt)
        try:
            out[f"select {fmt} {method}"] = count(sw.query().convert(), fmt)
        except Exception as e:  # noqa: BLE001 - reported, the test fails on it
            out[f"select {fmt} {method}"] = f"error: {e}"
    for fmt in (TURTLE, N3, RDF, RDFXML, XML, JSONLD, JSON):
        sw = SPARQLWrapper(endpoint)
        sw.setMethod(method)
        sw.setQuery(construct)
        sw.setReturnFormat(fmt)
        try:
            result = sw.query().convert()
            if isinstance(result, (bytes, str)):
                # SPARQLWrapper hands Turtle and N3 back unparsed: rdflib reads them.
                result = Graph().parse(data=result, format="turtle")
            elif isinstance(result, (dict, list)):
                result = Graph().parse(data=json.dumps(result), format="json-ld")
            out[f"construct {fmt} {method}"] = len(result)
        except Exception as e:  # noqa: BLE001
            out[f"construct {fmt} {method}"] = f"error: {e}"

from rdflib.plugins.stores.sparqlstore import SPARQLStore  # noqa: E402

g = Graph(store=SPARQLStore(endpoint))
try:
    out["rdflib select"] = len(list(g.query(select)))
    out["rdflib construct"] = len(g.query(construct).graph)
except Exception as e:  # noqa: BLE001
    out["rdflib"] = f"error: {e}"
print(json.dumps(out))
