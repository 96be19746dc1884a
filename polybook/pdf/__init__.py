"""The PDF stage: one PDF per framework, through Sphinx's LaTeX builder and xelatex."""
