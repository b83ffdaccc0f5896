"""Reading a photo safely: one pixel limit for the command line and the web page.

The limit is checked from the image's header, before any pixel is decoded: a
20000x20000 PNG is a few kilobytes on disk and 1.2 GB decoded (a decompression
bomb). Pillow refuses such files itself beyond about 179 megapixels; below that
this limit, `MAX_MEGAPIXELS`, bounds the memory one photo can take (3 bytes a pixel).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import IO

import numpy as np
from numpy.typing import NDArray
from PIL import Image, UnidentifiedImageError

MAX_MEGAPIXELS = 25  # a 24 MP camera photo: 75 MB decoded, a minute or so of work here


class PhotoTooLarge(ValueError):
    """The photo has more pixels than `MAX_MEGAPIXELS` (found from its header)."""


class PhotoUnreadable(ValueError):
    """Not an image Pillow can decode (empty, truncated, another kind of file)."""


def read_rgb(source: str | IO[bytes], name: str,
             on_large: tuple[float, Callable[[str], object]] | None = None) -> NDArray[np.uint8]:
    """The photo `source` (a path or an open binary file) as an H x W x 3 uint8 array.

    `name` is what messages call it. `on_large` = (megapixels, callable): the callable
    gets a message first if the photo has more than that many megapixels. Raises
    PhotoTooLarge, PhotoUnreadable, or OSError for a file that cannot be opened.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # checked below
            image = Image.open(source)
        with image:
            width, height = image.size
            megapixels = width * height / 1e6
            if megapixels > MAX_MEGAPIXELS:
                raise PhotoTooLarge(f"{name} is {width}x{height} ({megapixels:.0f} megapixels); "
                                    f"the limit is {MAX_MEGAPIXELS}: shrink it first")
            if on_large is not None and megapixels > on_large[0]:
                on_large[1](f"{name} is {width}x{height} ({megapixels:.1f} megapixels): "
                    "a large photo takes a while")
            return np.asarray(image.convert("RGB"))
    except Image.DecompressionBombError:
        limit = 2 * (Image.MAX_IMAGE_PIXELS or 0) / 1e6
        raise PhotoTooLarge(f"{name} is too large (over {limit:.0f} megapixels, too many to "
                            f"decode safely); the limit is {MAX_MEGAPIXELS}: shrink it first"
                            ) from None
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except (UnidentifiedImageError, OSError, ValueError) as error:
        if isinstance(error, PhotoTooLarge):
            raise
        raise PhotoUnreadable(f"{name} is not a readable image ({error})") from None
