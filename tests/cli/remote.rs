//! `kld push`, `--endpoint` against real SPARQL servers (issue 13).
