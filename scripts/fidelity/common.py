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


# A mean over seeds further than its tolerance from the published mean still holds when the
# difference is under this many standard errors: the seeds cannot tell the two means apart (gpusim
# draws its own seeded pod orders and node orders, not the artifact's).
NOISE_LIMIT_SE = 3


@dataclasses.dataclass
class Row:
    """One published figure against gpusim's. A number holds when it is within `tolerance` of the
    published one (None: reported, not judged), or for means over seeds within NOISE_LIMIT_SE of
    `noise`; a text (a ranking) holds when it is the same, or when `agrees_because` says why not
    (e.g. it swaps only policies the published seeds do not separate)."""

    what: str
    published: object
    gpusim: object
    tolerance: float | None = None
    noise: float | None = None  # the standard error of the difference of two means over seeds
    agrees_because: str | None = None

    def difference(self):
        if isinstance(self.published, str):
            return "same" if self.published == self.gpusim else self.agrees_because or "differs"
        return self.gpusim - self.published

    def within_tolerance(self):
        return self.tolerance is None or abs(self.difference()) <= self.tolerance + 1e-9

    def holds(self):
        if isinstance(self.published, str):
            return self.published == self.gpusim or self.agrees_because is not None
        return self.within_tolerance() or (self.noise is not None and abs(self.difference()) < NOISE_LIMIT_SE * self.noise)


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


def standard_error_of_difference(a, b):
    """The standard error of mean(a) - mean(b), two independent samples (e.g. per-seed figures)."""
    variance = lambda v: sum((x - mean(v)) ** 2 for x in v) / (len(v) - 1)
    return (variance(a) / len(a) + variance(b) / len(b)) ** 0.5


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
