"""The ``kld`` console script: the library's own command line
(``karenina_ld::cli::main_from_args``), run in this process."""

from __future__ import annotations

import sys

from ._native import main as _main


def main() -> None:
    """Runs ``kld`` with this process's arguments and exits with its status."""
    sys.stdout.flush()
    sys.exit(_main(["kld", *sys.argv[1:]]))
