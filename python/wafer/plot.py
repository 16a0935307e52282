"""The standard figures of an experiment with matplotlib (the same views the HTML
report draws): hit ratio and write-backs against cache size per policy, one panel per
trace, and write amplification / erases per device. Each function takes the DataFrame of
:func:`wafer.load_results` (pandas or polars) and returns a ``Figure``."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure


def _pandas(df: Any) -> Any:
    return df.to_pandas() if hasattr(df, "to_pandas") and not hasattr(df, "iloc") else df


def _by_size(df: Any, column: str, ylabel: str, title: str) -> Figure:
    """One panel per trace (their cache sizes differ), a shared y axis, one line per
    policy (and device, when there are several) in the same colour on every panel,
    and one legend for the figure, outside the data."""
    df = _pandas(df)
    traces = list(dict.fromkeys(df["trace"]))
    many_devices = df["device"].nunique() > 1
    cols = max(min(len(traces), 3), 1)
    rows = max(-(-len(traces) // cols), 1)
    fig = Figure(figsize=(1.0 + 3.4 * cols, 0.6 + 3.0 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, sharey=True, squeeze=False).ravel()
    # A line keeps its colour on every panel; after ten, dashes tell them apart.
    styles: dict[str, dict[str, str]] = {}
    for ax, trace in zip(axes, traces, strict=False):
        for (device, policy), g in df[df["trace"] == trace].groupby(
            ["device", "policy"], sort=False
        ):
            g = g.sort_values("capacity_pages")
            size_mib = g["capacity_pages"] * g["page_size"] / 2**20
            label = f"{policy} ({device})" if many_devices else str(policy)
            if label not in styles:
                n = len(styles)
                styles[label] = {"color": f"C{n % 10}", "linestyle": "-" if n < 10 else "--"}
            ax.plot(size_mib, g[column], marker="o", label=label, **styles[label])
        ax.set_xscale("log", base=2)
        ax.set_xlabel("cache size (MiB)")
        ax.set_title(str(trace), fontsize="medium")
        ax.grid(True, alpha=0.3)
    for ax in axes[len(traces) :]:
        ax.set_visible(False)
    for ax in axes[::cols]:
        ax.set_ylabel(ylabel)
    handles = {}
    for ax in axes[: len(traces)]:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, h)
    if handles:
        fig.legend(
            list(handles.values()), list(handles), loc="outside right upper", fontsize="small"
        )
    fig.suptitle(title)
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
    # Name the trace too when there are several: the bars are per cell.
    named = df["trace"].nunique() > 1
    labels = [
        f"{p}\n{d}" + (f"\n{t}" if named else "")
        for p, d, t in zip(df["policy"], df["device"], df["trace"], strict=True)
    ]
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
