# SPDX-License-Identifier: Apache-2.0
import pytest

import bam


@pytest.fixture
def cache():
    """A small CPU cache (64 pages) over one RAM namespace of 32 MiB: most tests evict."""
    return bam.PageCache([bam.ram_namespace(1 << 16)], page_bytes=4096, cache_bytes=64 * 4096, device="cpu")
