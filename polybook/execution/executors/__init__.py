"""Where a build's notebooks run: one module per executor (``local``, ``dask``, ``none``)
behind the :class:`~polybook.execution.executors.protocol.Executor` protocol, chosen by
``[build] executor`` through :mod:`polybook.execution.executors.registry` (the table of
executors and what each can do: :mod:`polybook.config.executors`)."""
