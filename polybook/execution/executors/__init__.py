"""Where a build's notebooks run: one module per executor (``local``, ``dask``, ``none``)
behind the :class:`~polybook.execution.executors.protocol.Executor` protocol, chosen by
``[build] executor`` through :mod:`polybook.execution.executors.registry`."""
