# SPDX-License-Identifier: Apache-2.0
"""bam.Profile: the per-step cache profile the C++ apps write (JSON, and its PNG through
plot_profile), recorded around Python work on a PageCache."""
import json
import time

from .plot_profile import plot

_COUNTERS = ("accesses", "hits", "misses", "coalesced", "evictions", "bytes_read", "bytes_written")


class Profile:
    """Records, for each step (a mini-batch, an epoch, ...), its time and what the cache did in
    it: hits, misses, evictions, bytes read. ``step()`` closes a step (waiting for ``stream``,
    torch's current stream by default on a GPU cache, so the time covers the work queued);
    ``save()`` writes the JSON the graph apps write, and its PNG where matplotlib is installed.

        profile = bam.Profile(cache, "train")
        for batch in loader:
            ...
            profile.step("batch")
        profile.save("profile.json", "profile.png")
    """

    def __init__(self, cache, command="python", data=""):
        self._cache = cache
        self._doc = {"command": command, "graph": data, "backend": "emulated",
                     "device": "gpu" if cache.on_gpu else "cpu", "page_bytes": cache.page_bytes,
                     "cache_bytes": cache.n_slots * cache.page_bytes, "trials": [{"profile": []}]}
        self._last = self._counters(None)
        self._since = time.perf_counter()

    def _counters(self, stream):
        stats = self._cache.stats(stream)  # waits for the stream's work (a GPU cache)
        return {k: stats[k] for k in _COUNTERS}

    def step(self, phase="", stream=None):
        """Ends the current step: its seconds and counter deltas become a row of the profile."""
        now_counters = self._counters(stream)
        now = time.perf_counter()
        steps = self._doc["trials"][0]["profile"]
        steps.append({"iteration": len(steps), "phase": phase, "seconds": now - self._since,
                      "cache": {k: now_counters[k] - self._last[k] for k in _COUNTERS}})
        self._last, self._since = now_counters, now

    @property
    def steps(self):
        """The rows recorded so far."""
        return list(self._doc["trials"][0]["profile"])

    def to_dict(self):
        return json.loads(json.dumps(self._doc))

    def save(self, json_path, png_path=None):
        """Writes the JSON and, when ``png_path`` is given, the PNG; returns whether the PNG was
        written (False without matplotlib)."""
        with open(json_path, "w") as f:
            json.dump(self._doc, f, indent=2)
        if png_path is None:
            return False
        try:
            plot(self._doc, png_path)
        except ImportError:
            return False
        return True
