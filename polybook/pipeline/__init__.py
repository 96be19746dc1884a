"""The build pipeline: the graph of stages (:mod:`~polybook.pipeline.graph`), what a build is
asked for (:mod:`~polybook.pipeline.request`), every output in one list
(:mod:`~polybook.pipeline.registry`) and the check that nothing changed since the last build
(:mod:`~polybook.pipeline.state`)."""
