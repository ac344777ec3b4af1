"""``python -m rankclust.cli``: the same as the ``rankclust`` command."""

from rankclust.cli import main

raise SystemExit(main())
