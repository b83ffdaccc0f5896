"""aviary: strong game-playing AIs and probabilistic tools from a classic AI course."""

__version__ = "0.1.0"

import os as _os

# numba's cache where the source tree is read-only (the arena's sandbox): see numba_cache.py
_os.environ.setdefault("NUMBA_CACHE_LOCATOR_CLASSES",
                       "UserProvidedCacheLocator,InTreeCacheLocator,"
                       "aviary.numba_cache.SeededCacheLocator,UserWideCacheLocator,"
                       "IPythonCacheLocator,ZipCacheLocator")
