"""Where a batch's shards are played: this process, local worker processes, or a Dask cluster.

Every backend runs the same function, ``shards.play_shard(spec, k, threads)``,
which plays shard ``k`` and returns its tables as Parquet bytes; the
coordinator (``simulate.run``) alone checks and writes the files and the
manifest.  Since round ``i`` depends on ``(seed, i)`` alone, the files are the
same whichever backend played them.

- ``Local``: in this process; numba plays the shard's rounds on all cores in threads.
- ``Processes(n)``: n worker processes (spawned, so numba's OpenMP threads are
  never forked), each playing whole shards with cores / n threads.
- ``Dask(address)`` / ``Dask(local=n)``: an existing ``dask.distributed``
  scheduler, or a ``LocalCluster`` of n workers started for this run (testing).
  Workers need lostcards installed; they send the Parquet bytes back, so no
  shared file system is needed.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Iterable, Iterator

import numba

from lostcards.errors import BadArgument, BatchError
from lostcards.run.shards import play_shard


def cores() -> int:
    return numba.config.NUMBA_NUM_THREADS


class Backend:
    """Plays shards; ``map`` yields ``ShardResult``s as they finish (in any order)."""

    kind = "?"

    def describe(self) -> dict:
        raise NotImplementedError

    @contextmanager
    def open(self):
        """Set up (connect to a cluster, say) for the `map` calls inside; fails early and clearly."""
        yield self

    def map(self, spec, shards: Iterable[int]) -> Iterator:
        raise NotImplementedError


class Local(Backend):
    """This process, one shard after another, each on `threads` numba threads (default all)."""

    kind = "local"

    def __init__(self, threads: int | None = None):
        self.threads = threads

    def describe(self) -> dict:
        return {"kind": self.kind, "workers": 1, "threads": self.threads or cores()}

    def map(self, spec, shards):

        for k in shards:
            yield play_shard(spec, k, self.threads)


def _parent_watchdog(parent: int):
    """A worker whose coordinator died (SIGKILL) stops instead of playing on."""
    import time
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(1)


def _worker_init(parent: int):
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the coordinator's to handle
    threading.Thread(target=_parent_watchdog, args=(parent,), daemon=True).start()


class Processes(Backend):
    """`workers` local processes, each playing whole shards on `threads` numba threads."""

    kind = "processes"

    def __init__(self, workers: int, threads: int | None = None):
        self.workers = workers
        self.threads = threads or max(1, cores() // workers)

    def describe(self) -> dict:
        return {"kind": self.kind, "workers": self.workers, "threads": self.threads}

    def map(self, spec, shards):
        import multiprocessing as mp
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait


        todo = iter(shards)
        ex = ProcessPoolExecutor(self.workers, mp_context=mp.get_context("spawn"),
                                 initializer=_worker_init, initargs=(os.getpid(),))
        pending = set()
        clean = False
        try:
            def fill():
                while len(pending) < 2 * self.workers:
                    k = next(todo, None)
                    if k is None:
                        return
                    pending.add(ex.submit(play_shard, spec, k, self.threads))
            fill()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    pending.discard(f)
                    yield f.result()
                fill()
            clean = True
        finally:
            if clean:
                ex.shutdown(wait=True)
            else:       # interrupted or failed: stop the shards in flight now
                procs = list(getattr(ex, "_processes", {}).values())
                ex.shutdown(wait=False, cancel_futures=True)
                for p in procs:
                    if p.is_alive():
                        p.terminate()
                for p in procs:
                    p.join(5)


class Dask(Backend):
    """A dask.distributed cluster: an existing scheduler's address, or a LocalCluster of `local` workers."""

    kind = "dask"

    def __init__(self, address: str | None = None, local: int | None = None,
                 threads: int | None = None, timeout: float | None = None):
        if (address is None) == (local is None):
            raise BadArgument("Dask backend: give either a scheduler address or a number of local workers")
        self.address = address
        self.local = local
        self.timeout = timeout or float(os.environ.get("LOSTCARDS_DASK_TIMEOUT", "10"))
        self.client = self.cluster = None
        # local workers share this machine's cores; a remote worker uses all of its own
        self.threads = threads or (max(1, cores() // local) if local else None)

    def describe(self) -> dict:
        d = {"kind": self.kind, "threads": self.threads or "all of each worker's cores"}
        if self.local:
            d.update(scheduler="local", workers=self.local)
        else:
            d.update(scheduler=self.address)
        return d

    def _client(self):
        try:
            import logging

            from distributed import Client, LocalCluster
        except ImportError:
            raise BatchError("the Dask backend needs the dask extra: pip install 'lostcards[dask]'") from None
        # the user hears from the coordinator only: no worker log lines (a failed shard is re-raised here)
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        if self.local:
            import warnings
            with _workers_ignore_ctrl_c(), warnings.catch_warnings():
                warnings.simplefilter("ignore")     # "port 8787 is in use" and the like: Dask's business
                cluster = LocalCluster(n_workers=self.local, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
            return Client(cluster), cluster
        try:
            return Client(self.address, timeout=self.timeout), None
        except (OSError, TimeoutError, ValueError) as e:
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise BatchError(f"cannot reach the Dask scheduler at {self.address}: {msg}") from None

    @contextmanager
    def open(self):
        self.client, self.cluster = self._client()
        try:
            yield self
        finally:
            client, cluster, self.client, self.cluster = self.client, self.cluster, None, None
            try:
                client.close()
                if cluster is not None:
                    cluster.close()
            except Exception:       # a cluster that went away meanwhile: nothing left to close
                pass

    def map(self, spec, shards):
        from distributed import as_completed


        if self.client is None:
            with self.open():
                yield from self.map(spec, shards)
            return
        client = self.client
        todo = iter(shards)
        window = 2 * max(1, len(client.scheduler_info().get("workers", {})) or 1)
        futures = []
        try:
            for k in todo:
                futures.append(client.submit(play_shard, spec, k, self.threads, pure=False))
                if len(futures) >= window:
                    break
            ac = as_completed(futures)
            for f in ac:
                res = f.result()
                f.release()
                yield res
                k = next(todo, None)
                if k is not None:
                    futures.append(client.submit(play_shard, spec, k, self.threads, pure=False))
                    ac.add(futures[-1])
        finally:
            try:
                client.cancel(futures)
            except Exception:
                pass


@contextmanager
def _workers_ignore_ctrl_c():
    """Start worker processes with Ctrl-C ignored (an ignored signal stays ignored in a spawned child):
    a terminal's Ctrl-C reaches every process of the group, and it is the coordinator's to handle."""
    import signal
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def silence_stderr():
    """After the last word to the user: a Dask cluster stopped while it was starting prints
    tracebacks from its exit hooks; those say nothing the user needs, so they go to /dev/null."""
    import sys
    try:
        sys.stderr.flush()
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 2)
    except OSError:
        pass


def make(workers: int | None = None, threads: int | None = None, scheduler: str | None = None,
         dask_local: int | None = None) -> Backend:
    """The backend the command-line options ask for."""
    if scheduler is not None or dask_local is not None:
        return Dask(address=scheduler, local=dask_local, threads=threads)
    if workers and workers > 1:
        return Processes(workers, threads)
    return Local(threads)
