//! `kld serve`: a read-only SPARQL endpoint, Graph Store read side, Karenina
//! routes and a browser page over a loaded store. (Issue 8; being built.)
