"""Images compared by how they look: raster images pixel by pixel after a slight blur (so
that a re-encoded PNG, new metadata or antialiasing is not a change), with an image of the
difference; SVG drawings by their content, coordinates within the tolerance."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageFilter, UnidentifiedImageError

VISIBLE = 24  # a difference of luminance (of 255) that an eye sees
BLUR = ImageFilter.GaussianBlur(1)
MARK = (220, 30, 30)  # the changed pixels, in the image of the difference
WHITE = (255, 255, 255)
_ONLY_VISIBLE = [255 if level > VISIBLE else 0 for level in range(256)]


@dataclass(frozen=True)
class PixelComparison:
    """How two raster images differ: the share of pixels that visibly changed, both sizes,
    and, when asked for, the first image faded with those pixels marked (PNG)."""

    score: float
    before_size: tuple[int, int]
    after_size: tuple[int, int]
    difference: bytes = b""

    def describe(self) -> str:
        text = f"{self.score:.2%} of the pixels differ"
        if self.before_size != self.after_size:
            (w1, h1), (w2, h2) = self.before_size, self.after_size
            text += f"; the size changed from {w1}×{h1} to {w2}×{h2}"
        return text


def _decode(data: bytes) -> Image.Image:
    with Image.open(io.BytesIO(data)) as opened:
        opened.load()  # the pixels stay once the file closes
        return opened if opened.mode in ("RGB", "RGBA") else opened.convert("RGBA")


def _flat(image: Image.Image) -> Image.Image:
    """The image on a white background, in RGB."""
    if image.mode == "RGB":
        return image
    backdrop = Image.new("RGBA", image.size, (*WHITE, 255))
    return Image.alpha_composite(backdrop, image).convert("RGB")


def _marked(image: Image.Image, mask: Image.Image) -> bytes:
    """``image`` faded, with the pixels of ``mask`` marked, as PNG."""
    faded = Image.blend(image.convert("L").convert("RGB"), Image.new("RGB", image.size, WHITE), 0.7)
    faded.paste(Image.new("RGB", image.size, MARK), mask=mask)
    png = io.BytesIO()
    faded.save(png, format="PNG")
    return png.getvalue()


def compare_pixels(before: bytes, after: bytes, threshold: float = 0.0) -> PixelComparison | None:
    """The comparison of two raster images (None when one does not decode), with the image
    of the difference when the share of changed pixels is over ``threshold`` or the size
    changed."""
    try:
        old, new = _decode(before), _decode(after)
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    sizes = (old.size, new.size)
    if (new.mode, new.size, new.tobytes()) == (old.mode, old.size, old.tobytes()):
        return PixelComparison(0.0, *sizes)  # encoded anew, or other metadata
    old, new = _flat(old), _flat(new)
    if new.size != old.size:
        new = new.resize(old.size, Image.Resampling.BILINEAR)
    # The difference, blurred a little: a line moved by a pixel, or drawn with other
    # antialiasing, fades below what is visible.
    gap = ImageChops.difference(old, new).convert("L").filter(BLUR)
    mask = gap.point(_ONLY_VISIBLE)
    width, height = old.size
    score = mask.histogram()[255] / max(1, width * height)
    if score <= threshold and sizes[0] == sizes[1]:
        return PixelComparison(score, *sizes)
    return PixelComparison(score, *sizes, _marked(old, mask))


_METADATA = re.compile(r"<metadata>.*?</metadata>|<!--.*?-->", re.S)
_ID = re.compile(r'\bid="([^"]+)"')


def svg_drawing(source: str) -> str:
    """An SVG's drawing: its metadata (dates, versions) and comments left out, and its ids
    (random in Matplotlib's) renamed in the order they appear."""
    text = _METADATA.sub("", source)
    for number, name in enumerate(dict.fromkeys(_ID.findall(text))):
        text = re.sub(rf'(?<=["#(]){re.escape(name)}(?=[")])', f"id{number}", text)
    return text
