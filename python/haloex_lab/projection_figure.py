"""The figure of `haloex-lab project` (projection.py), apart from it so
that matplotlib is loaded only when the figure is drawn."""

from __future__ import annotations

from pathlib import Path

from .plots import MARKERS, plt, save


def figure(net, lattice, points: list, base: int, stops: dict, measured: dict, out: Path) -> Path:
    """`haloex-lab project`: each strategy family's exchange against one
    step's computation, the LB rate and the parallel efficiency of the three
    halo modes against ranks; where a mode stops scaling is marked, and
    measured rates (chapter 6) drawn over the projection."""
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.6), constrained_layout=True)
    ranks = [q.ranks for q in points]
    for i, f in enumerate(points[0].halo_s):
        ax[0].loglog(ranks, [q.halo_s[f] * 1e6 for q in points], marker=MARKERS[i], markersize=3, label=f)
    ax[0].loglog(ranks, [q.compute_s * 1e6 for q in points], "k--", label="compute (one step)")
    for i, m in enumerate(points[0].mlups):
        st = {"marker": MARKERS[i], "color": plt.cm.tab10(i), "markersize": 3}
        ax[1].loglog(ranks, [q.mlups[m] for q in points], label=f"{m} (model)", **st)
        from_base = [q for q in points if q.ranks >= base]
        ax[2].semilogx([q.ranks for q in from_base], [q.efficiency[m] for q in from_base], label=m, **st)
        if stops.get(m):
            ax[2].axvline(stops[m], color=st["color"], alpha=0.4, linestyle=":")
        if m in measured:
            got = sorted(measured[m].items())
            ax[1].loglog(
                [p for p, _ in got],
                [v for _, v in got],
                linestyle="none",
                marker=MARKERS[i],
                markersize=9,
                markerfacecolor="none",
                color=st["color"],
                label=f"{m} (measured)",
            )
    ax[2].axhline(0.5, color="grey", linestyle=":", label="efficiency 1/2")
    ax[0].set(xlabel="ranks", ylabel="microseconds", title="halo exchange against one step's compute")
    ax[1].set(xlabel="ranks", ylabel="MLUPS", title="LB update rate (D3Q19)")
    ax[2].set(
        xlabel="ranks", ylabel="parallel efficiency", title=f"efficiency against {base} ranks", ylim=(0, 1.1)
    )
    for a in ax:
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    fig.suptitle(
        f"Projection: {'x'.join(map(str, lattice))} on {net.name}, {net.ranks_per_node} ranks per node",
        fontsize=10,
    )
    save(fig, out, "projection", ["png"])
    return out / "projection.png"
