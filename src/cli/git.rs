//! `kld diff`, `kld hash`.

/// Arguments of `kld diff`.
#[derive(clap::Args, Debug)]
pub struct DiffArgs {}

/// Arguments of `kld hash`.
#[derive(clap::Args, Debug)]
pub struct HashArgs {}

pub fn diff(_a: DiffArgs) -> anyhow::Result<u8> {
    anyhow::bail!("kld diff is not built yet")
}

pub fn hash(_a: HashArgs) -> anyhow::Result<u8> {
    anyhow::bail!("kld hash is not built yet")
}
