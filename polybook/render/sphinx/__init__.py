"""The render core's adapter to Sphinx and docutils: the extension every output loads
(:mod:`.core_ext` and the parts it sets up), the settings every output shares
(:mod:`.config`), located warnings (:mod:`.log`) and the Sphinx process (:mod:`.run`,
:mod:`.process`, :mod:`.job`). The rest of :mod:`polybook.render` knows nothing of Sphinx."""
