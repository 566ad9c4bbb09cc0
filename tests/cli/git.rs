//! `kld diff`, `kld hash`, pre-commit hooks (issue 10).
