"""What every build kernel imports before its first cell: a zygote imports it once for all
its kernels, and an environment compiles it when it is set up."""

from __future__ import annotations

# What every kernel imports: ipykernel and IPython, then what a kernel's start imports
# (the debugger, the history's sqlite3, the magics): a tenth of a second per notebook.
KERNEL_MODULES = (
    "ipykernel.kernelapp",
    "IPython",
    "polybook.authoring.kernel_ext",
    "ipykernel.debugger",
    "IPython.core.debugger",
    "IPython.core.completerlib",
    "IPython.core.oinspect",
    "IPython.extensions.storemagic",
    "sqlite3",
    "faulthandler",
    "tornado.queues",
    "tornado.platform.asyncio",
)
