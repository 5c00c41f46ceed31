"""What every fidelity comparison shares: running gpusim, reading a published table, and the rows of
paper (or peer simulator) against gpusim that scripts/reproduce.sh prints."""
import csv
import dataclasses
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PUBLISHED = os.path.join(ROOT, "results", "published")


@dataclasses.dataclass
class Row:
    """One published figure against gpusim's. A number holds when it is within `tolerance` of the
    published one (None: reported, not judged); a text (a ranking) holds when it is the same."""

    what: str
    published: object
    gpusim: object
    tolerance: float | None = None

    def difference(self):
        if isinstance(self.published, str):
            return "same" if self.published == self.gpusim else "differs"
        return self.gpusim - self.published

    def holds(self):
        if isinstance(self.published, str):
            return self.published == self.gpusim
        return self.tolerance is None or abs(self.difference()) <= self.tolerance + 1e-9


@dataclasses.dataclass
class Context:
    gpusim: str  # the gpusim executable
    data: str  # the data directory scenarios read traces from
    scratch: str  # a directory for the runs' files, removed afterwards

    def run(self, *args):
        """gpusim's output of one command, which must succeed."""
        command = [self.gpusim, *args, "--data", self.data]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"reproduce: `{' '.join(command)}` exited {done.returncode}:\n{done.stderr}")
        return done.stdout

    def scratch_file(self, name):
        return os.path.join(self.scratch, name)


def read_published(name):
    """The rows of results/published/NAME (a CSV transcribed from a paper or its artifact)."""
    with open(os.path.join(PUBLISHED, name), newline="") as f:
        return list(csv.DictReader(f))


def mean(values):
    values = list(values)
    return sum(values) / len(values)


def new_context(gpusim, data):
    return Context(gpusim=gpusim, data=data, scratch=tempfile.mkdtemp(prefix="gpusim-reproduce-"))


@dataclasses.dataclass
class Comparison:
    """A published comparison gpusim reproduces: `compare(context)` runs gpusim and returns its rows."""

    name: str  # what `scripts/reproduce.sh NAME` calls it
    title: str
    command: str  # the gpusim command(s) it runs, as a user would type them
    compare: object
    quick: bool = False  # run by the test command (a few seconds)
    needs: tuple = ()  # trace files, relative to the data directory
