"""Ctrl-C on a command in the middle of its work: `aviary NAME: interrupted`, exit 130.

A real `aviary classify` subprocess doing seconds of cross-validation gets a real
SIGINT once it has used some CPU time (so it is past start-up, inside the command).
"""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_an_interrupted_command_names_itself(tmp_path):
    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghij") for _ in range(6)) for _ in range(5000)]
    train = tmp_path / "train.txt"
    train.write_text("".join(f"{rng.choice(['East', 'West'])} "
                             f"{' '.join(rng.choice(words) for _ in range(12))}\n"
                             for _ in range(60000)))
    # Started as a shell starts it, Ctrl-C at its default: an ignored SIGINT is inherited
    # through exec, and the full suite once ran this with the test process's SIGINT ignored
    # (the command then finished its work, exit 0).
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    command = subprocess.Popen([sys.executable, "-m", "aviary", "classify", str(train),
                                "--cv", "5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while cpu_seconds(command.pid) < 1.0:  # several seconds of work remain at this point
        assert command.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    command.send_signal(signal.SIGINT)
    out, err = command.communicate(timeout=60)
    assert command.returncode == 130, f"{err!r} (SIGINT ignored in the test process: {ignored})"
    assert err == "aviary classify: interrupted\n"  # before: "aviary: interrupted"
