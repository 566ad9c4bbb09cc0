//! `kld serve`.

/// Arguments of `kld serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {}

pub fn serve(_a: ServeArgs) -> anyhow::Result<u8> {
    anyhow::bail!("kld serve is not built yet")
}
