"""CPU of one `gbrain.sync.merge.stale_view` call (pure; no brain, no watch) for the checkout on
``PYTHONPATH``: a page of 40 or 400 distinct lines, 1 or 8 writes through gbrain after the
file's version (each appends a line), the editor's buffer from before the first or the last of
them plus a typed line. The thread's CPU (``time.thread_time``: the machine's load does not
count), median of 7 × 20 calls. Compare checkouts by running it alternately:

    for t in /tmp/base /work/main; do PYTHONPATH=$t python benchmarks/stale_view_cpu.py; done
"""
from __future__ import annotations

import hashlib
import time

from gbrain.sync.merge import stale_view


def line(who: str, n: int) -> bytes:
    return f"- **2026-12-0{n % 9 + 1}** | {who} {n}: {hashlib.sha256(f'{who}{n}'.encode()).hexdigest()[:24]}\n".encode()


def main() -> None:
    for n_lines in (40, 400):
        base = b"# Ana\n\n" + b"".join(line("base", i) for i in range(n_lines))
        for writes, at, label in ((1, 0, "1 write, buffer before it"), (8, 0, "8 writes, buffer before all"),
                                  (8, 7, "8 writes, buffer before the last")):
            versions = [base]
            for w in range(writes):
                versions.append(versions[-1] + line("agent", w))
            disk, brain, older = versions[at] + b"USER typed a line of its own here\n", versions[-1], versions[-2::-1]
            cpu = []
            for _rep in range(7):
                t = time.thread_time()
                for _ in range(20):
                    v = stale_view(disk, brain, older)
                cpu.append((time.thread_time() - t) / 20)
            print(f"{n_lines} lines, {label}: {sorted(cpu)[3] * 1000:.2f} ms, ancestor {v.ancestor if v else None}")


if __name__ == "__main__":
    main()
