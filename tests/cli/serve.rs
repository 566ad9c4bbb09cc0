//! `kld serve` over HTTP (issue 8).
