"""Editions of one book: what a translation lags behind its source (``polybook editions
status``) and the record of what it was last synced with (``polybook editions sync``)."""

KINDS = ("missing", "extra", "code", "labels", "stale")  # what ``--fail-on`` can name
