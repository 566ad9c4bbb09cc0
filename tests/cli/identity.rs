//! IRIs in the lossless graph, compacted JSON-LD, RDF answers to CONSTRUCT (issue 9).
