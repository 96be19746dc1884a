"""The site: the HTML book on the render core, with tabs, downloads, the API pages and search.
Entry point: :mod:`polybook.site.stage`."""
