"""The execute stage: notebooks run in their framework's kernel (locally or on a Dask cluster),
cached by content, frozen outputs of GPU hosts. Entry point: :mod:`polybook.execution.stage`."""
