//! `kld push`.

/// Arguments of `kld push`.
#[derive(clap::Args, Debug)]
pub struct PushArgs {}

pub fn push(_a: PushArgs) -> anyhow::Result<u8> {
    anyhow::bail!("kld push is not built yet")
}
