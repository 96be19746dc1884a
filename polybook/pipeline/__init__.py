"""The build pipeline: the graph of stages (:mod:`~polybook.pipeline.graph`), what a build is
asked for (:mod:`~polybook.pipeline.request`) and the check that nothing changed since the
last build (:mod:`~polybook.pipeline.state`)."""
