"""The demo's node processes: each in its own process group, its output in a log file."""

from __future__ import annotations

import os
from pathlib import Path
import signal
import subprocess
import time

from grasp_monitor.nodes import node_command


class NodeProcess:
    """One node in its own process group, its output in a log file."""

    def __init__(self, name: str, args: list[str], log_path: Path, env: dict[str, str]):
        self.name = name
        self.log_path = log_path
        self._log = log_path.open('w')
        self.waited = False
        self.reported = False  # a failure of this process is said once
        self.popen = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._log,
                                      stderr=subprocess.STDOUT, env=env, process_group=0)
        self.stopping = False

    def alive(self) -> bool:
        """Whether the process still runs."""
        return self.popen.poll() is None

    def signal(self, signum: int) -> None:
        """Send ``signum`` to the process group (its children too)."""
        try:
            os.killpg(self.popen.pid, signum)
        except ProcessLookupError:
            pass

    def tail(self, lines: int = 12) -> str:
        """Return the last lines of the log."""
        self._log.flush()
        text = self.log_path.read_text(errors='replace').splitlines()
        return '\n'.join('    ' + line for line in text[-lines:])

    def close(self) -> None:
        """Close the log file."""
        self._log.close()


class ProcessGroup:
    """The demo's node processes: started with the parameter file, stopped with SIGINT."""

    def __init__(self, params_file: Path, logs_dir: Path, env: dict[str, str]):
        self.params_file = params_file
        self.logs_dir = logs_dir
        self.env = env
        self.processes: list[NodeProcess] = []

    def start(self, name: str, **params: object) -> NodeProcess:
        """Start node ``name`` with the parameter file, then ``params`` (which win)."""
        args = node_command(name, params, params_file=self.params_file)
        process = NodeProcess(name, args, self.logs_dir / f'{name}.log', self.env)
        self.processes.append(process)
        return process

    def died(self) -> list[str]:
        """Return a failure for each process that exited before it was asked to."""
        return [_failure(p, f'exited with status {p.popen.returncode} before it was stopped')
                for p in self.processes if not p.stopping and not p.reported and not p.alive()]

    def stop(self, processes: list[NodeProcess], grace_s: float) -> list[str]:
        """SIGINT ``processes``, wait, SIGKILL after ``grace_s``; return their failures."""
        return self.interrupt(processes) + self.wait(processes, grace_s)

    @staticmethod
    def interrupt(processes: list[NodeProcess]) -> list[str]:
        """SIGINT each process still running; return a failure for each that had exited."""
        failures = []
        for process in processes:
            if process.stopping:
                continue
            process.stopping = True
            if process.alive():
                process.signal(signal.SIGINT)
            elif not process.reported:
                failures.append(_failure(
                    process, f'exited with status {process.popen.returncode} before it was '
                    'stopped'))
        return failures

    @staticmethod
    def wait(processes: list[NodeProcess], grace_s: float) -> list[str]:
        """Wait for interrupted processes, SIGKILL after ``grace_s``; return their failures."""
        failures = []
        deadline = time.monotonic() + grace_s
        for process in processes:
            if process.waited:
                continue
            try:
                status = process.popen.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.signal(signal.SIGKILL)
                process.popen.wait()
                failures.append(_failure(
                    process, f'did not stop within {grace_s:g} s of SIGINT and was killed'))
            else:
                # -SIGINT: interrupted while still importing, before it could handle it
                if status not in (0, -signal.SIGINT) and not process.reported:
                    failures.append(_failure(process, f'exited with status {status}'))
            process.waited = True
            process.close()
        return failures


def _failure(process: NodeProcess, what: str) -> str:
    """Say once what went wrong with ``process``, with the end of its log."""
    process.reported = True
    return f'{process.name} {what}; {process.log_path} ends:\n{process.tail()}'
