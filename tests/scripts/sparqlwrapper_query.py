"""Runs one SPARQL query against an endpoint with SPARQLWrapper (a client
written elsewhere) and prints the SPARQL JSON results it got."""
import json
import sys

from SPARQLWrapper import JSON, POST, SPARQLWrapper

endpoint, query = sys.argv[1], sys.argv[2]
# SPARQLWrapper guesses the query type with a keyword regex that can trip on
# comment text (and then sends a SELECT as `update=`): drop comment lines.
query = "\n".join(l for l in query.splitlines() if not l.lstrip().startswith("#"))
sw = SPARQLWrapper(endpoint)
sw.setMethod(POST)
sw.setQuery(query)
sw.setReturnFormat(JSON)
print(json.dumps(sw.query().convert()))
