"""The library stage: ``#@save`` code -> the ``d2l`` package (its modules, aliases, the wheel)
and the notebooks as readers run them. Entry points: :mod:`polybook.library.stage`."""
