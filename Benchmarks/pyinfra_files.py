"""Benchmark (a) for pyinfra: 10 directories and 10 small files per host, under its name."""
from io import StringIO

from pyinfra import host
from pyinfra.operations import files

files.directory(name="base", path=f"/srv/bench/{host.name}", mode="755", user="root", group="root")
for index in range(1, 11):
    files.directory(name=f"dir{index}", path=f"/srv/bench/{host.name}/dir{index}", mode="755", user="root", group="root")
    files.put(
        name=f"file{index}",
        src=StringIO(f"file {index} on {host.name}\n"),
        dest=f"/srv/bench/{host.name}/dir{index}/file.txt",
        mode="644",
        user="root",
        group="root",
    )
