"""How every benchmark script starts: bad arguments are one line on stderr and exit 2.

The scripts parse with `aviary.errors.ArgumentParser`, whose errors are a `UsageError`
(not argparse's usage text and a second line), and start their `main` through
`run_main`, which prints that error alone, as `aviary`'s own commands do.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn

from aviary.errors import UsageError


def run_main(main: Callable[[], int | None]) -> NoReturn:
    """Call `main` and exit with its status; a `UsageError` is one line and status 2."""
    try:
        status = main()
    except UsageError as error:
        print(error, file=sys.stderr)
        sys.exit(error.exit_status)
    sys.exit(status)
