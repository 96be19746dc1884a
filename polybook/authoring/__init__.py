"""Authoring in Jupyter: pages as notebooks, the framework kernels' extension, the launcher."""
