"""The standard figures of an experiment with matplotlib (the same views the HTML
report draws): hit ratio and write-backs against cache size per policy, and write
amplification / erases per device. Each function takes the DataFrame of
:func:`wafer.load_results` (pandas or polars) and returns a ``Figure``."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure


def _pandas(df: Any) -> Any:
    return df.to_pandas() if hasattr(df, "to_pandas") and not hasattr(df, "iloc") else df


def _by_size(df: Any, column: str, ylabel: str, title: str) -> Figure:
    df = _pandas(df)
    fig = Figure(figsize=(6.4, 4.0), layout="constrained")
    ax = fig.subplots()
    for (trace, device, policy), g in df.groupby(["trace", "device", "policy"], sort=False):
        g = g.sort_values("capacity_pages")
        size_mib = g["capacity_pages"] * g["page_size"] / 2**20
        many = df["trace"].nunique() > 1 or df["device"].nunique() > 1
        label = f"{policy} ({trace}, {device})" if many else policy
        ax.plot(size_mib, g[column], marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("cache size (MiB)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def hit_ratio(df: Any) -> Figure:
    """Hit ratio against cache size, one line per policy."""
    return _by_size(df, "hit_ratio", "hit ratio", "Hit ratio vs cache size")


def write_backs(df: Any) -> Figure:
    """Pages written back to storage (write-backs + padding) against cache size."""
    df = _pandas(df).copy()
    df["write_backs"] = df["page_writes"] + df["pad_writes"]
    return _by_size(df, "write_backs", "pages written to storage", "Write-backs vs cache size")


def device_wear(df: Any) -> Figure:
    """Write amplification (left) and block erases (right) per device and policy, at
    the largest cache size of each (cells without a device are left out)."""
    df = _pandas(df)
    df = df[df["ftl_waf"].notna()]
    if df.empty:
        raise ValueError("no cell has a device: add `devices` to the experiment")
    biggest = df.groupby(["trace", "device", "policy"])["capacity_pages"].transform("max")
    df = df[df["capacity_pages"] == biggest]
    fig = Figure(figsize=(8.0, 4.0), layout="constrained")
    ax_waf, ax_erases = fig.subplots(1, 2)
    labels = [f"{p}\n{d}" for p, d in zip(df["policy"], df["device"], strict=True)]
    x = range(len(df))
    ax_waf.bar(x, df["ftl_waf"])
    ax_waf.set_ylabel("write amplification")
    ax_erases.bar(x, df["ftl_erases"], color="tab:orange")
    ax_erases.set_ylabel("block erases")
    for ax in (ax_waf, ax_erases):
        ax.set_xticks(list(x), labels, fontsize="small", rotation=45, ha="right")
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("Device wear at the largest cache size")
    return fig
