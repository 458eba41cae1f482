"""`cogit stats`: tool usage as bars, the most common sequences, engagement."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json
from cogit.store import memory

BAR = 24


def render_stats(tools: dict, engagement: dict, top: int = 10) -> str:
    stats = tools.get("tools") or {}
    lines = [f"Tool usage over {tools.get('sessions', 0)} session(s):"]
    if not stats:
        lines.append("  (no tool calls recorded yet)")
    ranked = sorted(stats.items(), key=lambda kv: (-int(kv[1].get("calls", 0)), kv[0]))[:top]
    most = max((int(s.get("calls", 0)) for _, s in ranked), default=1) or 1
    width = max((len(n) for n, _ in ranked), default=4)
    for name, s in ranked:
        calls = int(s.get("calls", 0))
        ok = 100 * (calls - int(s.get("failures", 0))) / calls if calls else 0
        bar = "█" * max(1, round(BAR * calls / most))
        timed = int(s.get("timed_calls", 0))
        mean = f", mean {int(s.get('duration_ms_total', 0)) / timed / 1000:.2f}s" if timed else ""
        lines.append(f"  {name:<{width}} {bar:<{BAR}} {calls} calls ({ok:.0f}% success{mean})")
    seqs = sorted((tools.get("sequences") or {}).items(), key=lambda kv: (-int(kv[1]), kv[0]))[:top]
    if seqs:
        lines.append("Common sequences:")
        for key, n in seqs:
            lines.append(f"  {key:<40} {n}")
    total = int(engagement.get("total_interactions", 0))
    meaningful = int(engagement.get("meaningful_interactions", 0))
    if total:
        lines.append(f"Engagement: {meaningful} of {total} interactions meaningful ({100 * meaningful / total:.0f}%)")
    return "\n".join(lines)


@cli.command()
@click.option("--top", default=10, show_default=True, type=click.IntRange(min=1))
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def stats(obj, top: int, as_json: bool) -> None:
    """Tool usage statistics (calls, success rate, mean duration, common sequences)."""
    _, state = memory.read(obj.home)
    if as_json:
        emit_json({"tools": state["tools"], "engagement": state["engagement"]})
    else:
        click.echo(render_stats(state["tools"], state["engagement"], top))
