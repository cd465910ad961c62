"""Benchmark (b) for pyinfra: 100 small templates per host."""
import os

from pyinfra import host, inventory
from pyinfra.operations import files

here = os.path.dirname(os.path.abspath(__file__))
peers = [h.name for h in inventory]
files.directory(name="dir", path="/srv/bench-templates", mode="755")
for index in range(1, 101):
    files.template(
        name=f"item{index}",
        src=os.path.join(here, "item.conf.j2"),
        dest=f"/srv/bench-templates/item{index}.conf",
        index=index,
        inventory_hostname=host.name,
        groups={"all": peers},
    )
