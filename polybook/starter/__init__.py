"""``polybook new``: a minimal book that builds at once (:mod:`.book`), and the CI workflow
that executes it per framework and deploys it (:mod:`.github`)."""
