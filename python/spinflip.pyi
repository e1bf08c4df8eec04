"""spinflip: Monte Carlo simulation of Ising and vector spin models, from Python.

A run is started from a config (RON text, a path to a RON file, or a dict) and writes the same
run directory as ``spinflip run config.ron --out DIR``, byte for byte; ``run`` then returns it as
``load`` reads it: the summary as a dict, every CSV table as NumPy columns, the final lattices and
the couplings as ``int8`` arrays of +-1 (vector spins: ``float32`` components; a Gaussian glass's
couplings ``float64``). The same config and seed give the same bits on every backend
(``BACKENDS``).
"""

import os
from typing import Any, Callable, Literal, Sequence, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

BACKENDS: tuple[str, ...]
"""The backends this build has, as ``run``'s ``backend`` names them: ``"auto"``, ``"cpu"``,
``"wgpu"``, and ``"cuda"`` in a build with the ``cuda`` feature."""

Config = Union[str, "os.PathLike[str]", dict[str, Any]]
"""RON text (a ``str`` containing ``(``), a path to a RON file (``os.PathLike``, or a ``str``
without ``(``), or a dict in the config's JSON form: enums externally tagged, e.g.
``{"model": {"Ising": {"dims": 2, "size": 16}}, "temperatures": {"Betas": [0.4, 0.44]},
"replicas": 32, "seed": 1}``; ``config_dict`` turns any config into one."""

Table = dict[str, npt.NDArray[Any]]
"""A CSV file as columns: each column's name to a 1-D array, ``int64`` where every value is an
integer, else ``float64``, rows in the file's order (``pandas.DataFrame(table)`` takes it)."""

class Run(TypedDict, total=False):
    """A finished run directory, as ``load`` returns it. Keys follow the files: every file the
    run wrote appears under its name, so a run has only the keys of its files."""

    summary: dict[str, Any]
    """``summary.json`` (a run of sweeps) or ``annealing.json`` (population annealing): the
    estimates with their errors, the engine, the provenance."""
    config: str
    """The resolved ``config.ron`` (with the engine ``Auto`` chose)."""
    betas: npt.NDArray[np.float64]
    """Runs of sweeps: the inverse temperatures; index ``t`` of the per-temperature lists."""
    timeseries: list[Table]
    """Per temperature, one row per measurement and system: ``measurement, sweep, [sample,]
    replica, E, M, e, m``."""
    thermalization: list[Table]
    """The same columns, measured while thermalising (in no estimate)."""
    overlaps: list[Table]
    """Spin glass, per temperature: ``measurement, sweep, sample, pair, q, q2_kmin, q_link``."""
    samples: list[Table]
    """Spin glass, per temperature: every sample's thermal averages."""
    final_state: Union[npt.NDArray[np.int8], npt.NDArray[np.float32]]
    """The final lattices, +-1 of shape ``(temperatures, [samples,] replicas, [L,] L, L)`` (the
    last axis x), also where the file packs them; vector spins as ``float32`` components, as
    ``final_state.npy`` holds them."""
    couplings: Union[npt.NDArray[np.int8], npt.NDArray[np.float64]]
    """Spin glass: +-1 of shape ``(samples, [L,] L, L, dims)``, the bond from each site to its
    +x, +y[, +z] neighbour; the Gaussian vector glass's as ``float64``."""
    temperature_history: Table
    """Parallel tempering: ``measurement, sweep, chain, walker, temperature_index, beta``."""
    round_trips: Table
    """Parallel tempering: ``sample, chain, round_trips, sweeps_per_round_trip``."""
    annealing: Table
    """Population annealing: per beta, the mean and error over populations."""
    annealing_populations: Table
    """Population annealing: one row per population and beta."""
    annealing_reweighted: Table
    """Population annealing with ``reweighting``: e, c, ln Z, f at the reweighted betas."""

class SpinflipError(Exception):
    """A run, a run directory or a device failed; the message is the command's."""

class ConfigError(SpinflipError):
    """The config cannot be read or describes nothing that can run. A parse error names
    ``file:line:col`` (``<config>`` for RON text) and the field; a dict's errors name the
    field."""

class RunStopped(SpinflipError):
    """The run stopped before its end (``wall_time``) with a checkpoint in ``out``: continue
    it with ``run(config, out, resume=True)``."""

def run(
    config: Config,
    out: Union[str, "os.PathLike[str]"],
    *,
    force: bool = False,
    resume: bool = False,
    progress: Union[bool, Callable[[int, int], object], None] = None,
    backend: Literal["auto", "cpu", "wgpu", "cuda", None] = None,
    adapter: Union[str, None] = None,
    wall_time: Union[float, str, None] = None,
) -> Run:
    """Run the simulation ``config`` into the directory ``out`` and return it as ``load`` does.

    The run is ``spinflip run CONFIG --out OUT``: the same checks, files and bits. Python's
    other threads run meanwhile (the GIL is released).

    Args:
        config: RON text, a path to a RON file, or a dict (see ``Config``).
        out: the run directory, created if missing; one run at a time holds it.
        force: start afresh where ``out`` holds an earlier run (its files are replaced).
        resume: continue the run in ``out`` from its checkpoint (after ``RunStopped``, or a
            killed process), to the same files as an uninterrupted run.
        progress: ``None`` or ``True``: progress lines on standard error (the terminal that
            started Python, not a notebook's cell); ``False``: none; a callable: called
            ``progress(done, total)`` in sweeps after every plan of a run of sweeps (population
            annealing does not call it); an exception it raises is raised when the run ends.
        backend: overrides the config's ``backend`` (one of ``BACKENDS``).
        adapter: overrides the config's ``adapter`` (an index, a backend or a name substring;
            for CUDA a device index).
        wall_time: the time after which the run is stopped with a checkpoint (with the margin
            of ``--wall-time``), raising ``RunStopped``: a number of seconds, or text as
            ``--wall-time`` takes it (``"23h50m"``, ``"0-23:50:00"``).

    Raises:
        ConfigError: the config cannot be parsed or is invalid.
        RunStopped: the run stopped at its ``wall_time``.
        SpinflipError: anything else (a device, a file, ``out`` in use or holding another run).
    """

def load(dir: Union[str, "os.PathLike[str]"], *, lattices: bool = True) -> Run:
    """Load the finished run in ``dir`` (see ``Run``), with the library's readers.

    Args:
        dir: a run directory, as ``run`` or ``spinflip run`` wrote it.
        lattices: whether to read ``final_state`` (large runs: 1 byte a spin once unpacked).
    """

@overload
def exact(beta: float, size: Union[int, None] = None) -> dict[str, float]: ...
@overload
def exact(
    beta: Union[Sequence[float], npt.NDArray[np.float64]], size: Union[int, None] = None
) -> dict[str, npt.NDArray[np.float64]]: ...
def exact(beta: Any, size: Union[int, None] = None) -> Any:
    """The exact values of the 2D Ising model at zero field, per site: ``e`` (energy), ``c``
    (specific heat), ``f`` (free energy). On the periodic ``size x size`` lattice they are
    Kaufman's (B. Kaufman, Phys. Rev. 76, 1232 (1949)), as ``spinflip exact`` prints them; with
    ``size=None``, the infinite lattice's (L. Onsager, Phys. Rev. 65, 117 (1944); ``c`` is
    infinite at beta_c).

    Args:
        beta: an inverse temperature (floats back) or a 1-D sequence of them (arrays back).
        size: L, even and at least 2, or ``None`` for the infinite lattice.
    """

def default_config() -> str:
    """The built-in default config as commented RON text (``spinflip run --print-default``)."""

def config_dict(config: Config) -> dict[str, Any]:
    """Any config as the dict ``run`` takes, every field present: edit it and run it."""

def config_ron(config: Config) -> str:
    """Any config as RON text, as a run writes it into ``config.ron`` (for ``spinflip run``)."""
