"""One notebook in its framework's Jupyter kernel: the kernel's launch (``launch``), the run
and its client (``execute``, ``client``), kernels forked from a warm zygote per environment
(``zygote_server``, ``zygote_pool``, ``forking_provisioner``, ``head_start``), the silence
``watchdog`` and the ``cell_log``. Standard library only at import: the zygote server runs
in the framework's Python."""
