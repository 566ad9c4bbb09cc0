//! Existing SPARQL servers as stores: SPARQL 1.1 Protocol and Graph Store
//! Protocol client, server shorthands, push plans. (Issue 13; being built.)
