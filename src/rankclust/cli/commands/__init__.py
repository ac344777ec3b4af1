"""The ``rankclust`` commands, one module each: ``cmd_NAME(args, console) -> exit code``.

A command reads its input with :mod:`rankclust.cli._input`, fits an estimator of the method
registries (:mod:`rankclust.cli._methods`), prints with :mod:`rankclust.cli.report` and
writes with :mod:`rankclust.cli._outputs`. Its options are declared in
:mod:`rankclust.cli._parser`.
"""
