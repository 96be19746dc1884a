"""The environments stage: one venv (or an existing interpreter) and Jupyter kernel per
framework, and the devices this host offers. Entry point: :mod:`polybook.environments.prepare`."""
