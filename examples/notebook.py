# %% [markdown]
# # wafer from Python
#
# A notebook-style tour (run it as a script, or open it in Jupyter/VS Code, which
# read the `# %%` cells): open a trace, simulate one cache, run a small experiment
# grid, load its results as a DataFrame and draw a figure.
#
#     python examples/notebook.py [OUTPUT_DIR]

# %%
import sys
from pathlib import Path

import wafer
import wafer.plot

HERE = Path(__file__).resolve().parent
# MQSim's TPC-C sample, which the repository carries (traces/third-party/README.md).
TRACE = HERE.parent / "traces" / "third-party" / "disksim" / "tpcc-small.trace"
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("wafer-out") / "notebook"

# %% Open a trace: statistics, then the requests as NumPy batches.
trace = wafer.open_trace(TRACE)
info = trace.info()
print(f"{info['requests']} requests, format {info['format']}")
first = next(trace.batches(5))
print({k: v.tolist() for k, v in first.items()})

# %% One simulation: the record `wafer sim --json` prints.
row = wafer.simulate(trace, "lru", "8MiB")
print("LRU at 8 MiB: hit ratio", round(row["hit_ratio"], 4))

# %% A small grid: 3 policies x 3 cache sizes on paper 004's SLC flash (samsung-k9).
# The TPC-C sample's accesses are scattered over 216 GiB; the default address map,
# compact, places the erase blocks they touch on the device in first-touch order
# (its 256 KiB blocks hold them; a 16 GiB microSD card's 4 MiB blocks would not, and
# address_map = "wrap" would fold them). Rows say what moved: ftl_remapped_ops.
OUT.mkdir(parents=True, exist_ok=True)
exp = OUT / "notebook.toml"
exp.write_text(f"""
name = "notebook grid"
traces = [{{ path = "{TRACE}" }}]
policies = ["lru", "clock", "lb-clock"]
cache_sizes = ["1MiB", "4MiB", "16MiB"]
devices = ["samsung-k9"]
block_size = "256KiB"
[outputs]
figures = ["hit-ratio"]
report = false
""")
out = wafer.run_experiment(exp, OUT / "results")

# %% Results as a pandas DataFrame (via Arrow from results.parquet).
df = wafer.load_results(out)
print(df[["policy", "cache", "hit_ratio", "ftl_waf", "ftl_remapped_ops"]].to_string(index=False))

# %% Figures: hit ratio against cache size, and device wear.
fig = wafer.plot.hit_ratio(df)
fig.savefig(OUT / "hit_ratio.png", dpi=100)
wafer.plot.device_wear(df).savefig(OUT / "device_wear.png", dpi=100)
print("figures:", OUT / "hit_ratio.png", OUT / "device_wear.png")
