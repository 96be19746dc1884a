"""What changed between two builds of the same pages: outputs compared cell by cell, by
meaning (numbers within a tolerance, reprs parsed, images by how they look), with the
package versions of both sides (``polybook diff``, ``polybook upgrade``, ``polybook
baseline``)."""
