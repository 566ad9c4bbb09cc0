//! Karenina verification-results exports (JSON 2.x, CSV): reading, the results
//! mapping to RDF, linking results to checkpoint questions. (Issue 12; being built.)
