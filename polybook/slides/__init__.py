"""Slides: one deck per section per framework (RISE notebooks and reveal.js decks)."""
