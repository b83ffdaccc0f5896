"""`python -m aviary` is the same as the `aviary` command."""

from aviary.cli import main

raise SystemExit(main())
