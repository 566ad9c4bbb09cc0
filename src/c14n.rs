//! RDFC-1.0 canonicalization and dataset hashes by sophia_c14n. (Issue 10; being built.)
