"""`python -m spade` is the `spade` command."""

import sys

from spade.cli import main

sys.exit(main())
