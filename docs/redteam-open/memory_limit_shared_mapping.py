# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: RLIMIT_DATA escaped with MAP_SHARED memory | device: any
# The worker's memory limit is RLIMIT_DATA (prlimit --data), which counts only private writable mappings. Shared
# anonymous memory (mmap MAP_SHARED|MAP_ANONYMOUS, memfd_create, torch's share_memory_()) is not counted, so one
# process grows past the limit without a MemoryError: the host's OOM killer is back to choosing a victim. Run with
# COURSE_MEMORY_LIMIT=1G to see it safely: the private 2 GiB allocation fails, the shared 3 GiB one succeeds.
import mmap
import os

GIB = 2**30
_report = []
try:
    private = bytearray(2 * GIB)  # private memory: over the limit, refused
    _report.append("private 2 GiB: allowed")
    del private
except MemoryError:
    _report.append("private 2 GiB: MemoryError (limit works)")
shared = mmap.mmap(-1, 3 * GIB, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
for off in range(0, 3 * GIB, 4096):  # touch every page: real memory
    shared[off] = 1
with open("/proc/self/status") as f:
    rss = [line.split(":")[1].strip() for line in f if line.startswith(("VmRSS", "RssShmem"))]
with open("/proc/self/limits") as f:
    data = [line.split()[3] for line in f if line.startswith("Max data size")]
_report.append(f"shared 3 GiB: allocated and touched (VmRSS {rss[0]}, RssShmem {rss[1]}; RLIMIT_DATA {data})")


def benchmark(fn, *args):
    return 1.0


def fast_gelu_bias(x, bias):
    raise RuntimeError("; ".join(_report))
