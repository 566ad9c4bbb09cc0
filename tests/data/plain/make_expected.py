#!/usr/bin/env python3
"""Expected N-Quads for `kld export --plain`, made by pyld (an independent
JSON-LD 1.1 processor), one file per corpus checkpoint.

    pip install pyld==3.3.0
    python3 make_expected.py ../corpus/loads

Each corpus file is read as written (its own inline @context) with the base IRI
https://example.org/corpus/<file name>, and converted with
pyld.jsonld.to_rdf(..., {'format': 'application/n-quads'}). No document loader
is needed: every loadable corpus file has an inline context. The test compares
kld's output with these files by RDF isomorphism (RDFC-1.0).
"""
import json, os, sys
from pyld import jsonld

src = sys.argv[1]
for name in sorted(os.listdir(src)):
    if not name.endswith('.jsonld'):
        continue
    with open(os.path.join(src, name), encoding='utf-8') as f:
        doc = json.load(f)
    nq = jsonld.to_rdf(doc, {'format': 'application/n-quads',
                             'base': 'https://example.org/corpus/' + name})
    with open(name[:-len('.jsonld')] + '.nq', 'w', encoding='utf-8') as f:
        f.write(nq)
    print(name, nq.count('\n'), 'quads')
