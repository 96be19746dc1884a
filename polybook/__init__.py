"""polybook: build multi-framework interactive textbooks from d2l-style Markdown."""

__version__ = "0.1.0"
