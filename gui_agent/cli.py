"""`gui-agent` command line: run | screenshot | playground | app | demo | batch | bench | ….

Heavy modules are imported inside each command so that `gui-agent --help` and an offline
`gui-agent run` start fast.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from . import __version__
from .errors import GuiAgentError
from .terminal_text import printable

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="do a task on the screen", description=(
        "Do a task on the real screen with the real mouse and keyboard. Without a model the "
        "offline planner understands explicit instructions such as "
        "'type \"Ann\" into the Name field, then click \"Save\"'."))
    p.add_argument("task", help="what to do, in plain words")
    p.add_argument("--dry-run", action="store_true", help="plan and ground each step, touch nothing")
    p.add_argument("--screenshot", type=Path, metavar="FILE",
                   help="plan against this screenshot instead of the screen (implies --dry-run)")
    p.add_argument("--max-steps", type=int, help="stop after this many actions (default 30)")
    p.add_argument("--max-seconds", type=float, help="stop after this many seconds (default 300)")
    p.add_argument("--monitor", type=int, help="monitor to watch: 1, 2, ... or 0 for all (default 1)")
    p.add_argument("--headless", action="store_true", help="run on a new virtual display")
    p.add_argument("--safety", choices=["ask", "refuse", "allow"],
                   help="risky actions (delete, send, pay, ...): ask (default), refuse or allow")
    p.add_argument("--allow", action="append", default=[], metavar="WORD",
                   help="pre-approve risky actions named by WORD (e.g. --allow delete); repeatable")
    p.add_argument("--runs-dir", type=Path, help="where run folders go")
    p.add_argument("--no-memory", action="store_true",
                   help="neither use nor update the experience memory (no skills, nothing remembered)")
    p.add_argument("--no-skills", action="store_true",
                   help="always plan, even when the task matches a skill (the run is still remembered)")
    p.add_argument("--no-a11y", action="store_true",
                   help="see the screen through its pixels alone, without the accessibility tree")
    p.add_argument("--save-as", metavar="NAME",
                   help="when the run succeeds, save it as a skill named NAME (its typed texts become "
                        "parameters)")
    _add_model_flags(p)


def _add_model_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model", "plan with a vision-language model instead of the offline "
                             "planner (also settable in the config file and GUI_AGENT_* variables)")
    g.add_argument("--model", metavar="DIR_OR_ID",
                   help="a local model folder, a Hugging Face repo id, or a server's model name")
    g.add_argument("--family", metavar="NAME",
                   help="the model family (see `gui-agent models`; default: guessed from the model)")
    g.add_argument("--backend", choices=["transformers", "openai"],
                   help="run the model in-process (transformers) or on an OpenAI-compatible server")
    g.add_argument("--base-url", metavar="URL", help="the server's URL, e.g. http://localhost:8000/v1")
    g.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the server's API key")
    g.add_argument("--grounding-model", metavar="DIR_OR_ID",
                   help="a separate pointing model for targets the screen parser cannot find")
    g.add_argument("--grounding-family", metavar="NAME", help="the grounding model's family")
    g.add_argument("--grounding-zoom", action="store_true", default=None,
                   help="refine the grounding model's point on a zoomed-in crop (a second model call)")
    g.add_argument("--allow-download", action="store_true", default=None,
                   help="download model weights from the Hugging Face hub when they are not cached")
    g.add_argument("--device", metavar="DEVICE", help="auto, cpu, cuda, cuda:N or mps")
    g.add_argument("--dtype", choices=["auto", "float32", "float16", "bfloat16"])
    g.add_argument("--max-pixels", metavar="PIXELS", type=_pixels,
                   help="image budget per screenshot, e.g. 1280x28x28 (default: the family's)")
    g.add_argument("--min-pixels", metavar="PIXELS", type=_pixels, help="smallest image budget")
    g.add_argument("--planner-model", metavar="DIR_OR_ID",
                   help="a chat model that plans subtasks for --model (or writes gui-agent's action "
                        "text itself); see `gui-agent models` for the modes")
    g.add_argument("--planner-family", metavar="NAME",
                   help="the planner model's family (default: guessed; 'chat' for a text-only model)")
    g.add_argument("--planner-backend", choices=["transformers", "openai"],
                   help="run the planner in-process or on a server (default: openai with "
                        "--planner-base-url)")
    g.add_argument("--planner-base-url", metavar="URL", help="the planner model's server URL")
    g.add_argument("--max-new-tokens", metavar="N", type=int,
                   help="longest reply (default: the family's)")
    g.add_argument("--temperature", type=float, help="sampling temperature (default: the family's)")
    g.add_argument("--top-p", type=float, help="nucleus sampling (default: the family's)")


def _pixels(text: str) -> int:
    from .backends.images import parse_budget

    try:
        return parse_budget(text)
    except GuiAgentError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gui-agent", description=(
        "A local-first desktop agent: it sees the screen, plans, and acts with the real mouse "
        "and keyboard."))
    parser.add_argument("--version", action="version", version=f"gui-agent {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _add_run(sub)

    from .commands.screenshot import add_screenshot_parser

    add_screenshot_parser(sub)

    from .playground.options import DESCRIPTION as PLAYGROUND
    from .playground.options import add_arguments as add_playground_arguments

    p = sub.add_parser("playground", help="open the playground app used by the demo and tests",
                       description=PLAYGROUND)
    add_playground_arguments(p)

    from ui.main import __doc__ as app_description
    from ui.main import add_arguments as add_app_arguments

    p = sub.add_parser("app", help="open the desktop app (same as gui-agent-app)",
                       description=app_description)
    add_app_arguments(p)

    p = sub.add_parser("demo", help="run the demo tasks on the playground app and write a report")
    p.add_argument("--headless", action="store_true", help="always use a virtual display")
    p.add_argument("--out", type=Path, default=Path("demo-report"), help="report folder")
    p.add_argument("--tasks", help="comma-separated task numbers to run (default: all)")

    from .commands.batch import add_batch_parser

    add_batch_parser(sub)

    p = sub.add_parser("bench", help="reproducible measurements")
    bsub = p.add_subparsers(dest="bench", metavar="BENCH")
    bsub.required = True
    b = bsub.add_parser("latency", help="per-stage time of one agent step at 1280x800 and 1920x1080")
    b.add_argument("--repeats", type=int, default=5)
    b.add_argument("--sizes", default="1280x800,1920x1080")
    b.add_argument("--json", type=Path, help="also write the figures here")
    b = bsub.add_parser("miniwob", help="MiniWoB++ tasks from pixels with real input (needs chromium)",
                        description="Run MiniWoB++ tasks in chromium on a virtual display: the agent "
                        "sees only screenshots and acts with the real mouse and keyboard.")
    from .bench.miniwob import add_arguments as add_miniwob_arguments

    add_miniwob_arguments(b)
    b = bsub.add_parser("vlm", help="image tokens, prefill/decode speed and seconds per step of a local VLM",
                        description="Measure a local vision-language model at several image budgets "
                        "on 1280x800 and 1920x1080 screenshots.")
    from .bench.vlm import add_arguments as add_vlm_arguments

    add_vlm_arguments(b)

    b = bsub.add_parser("skills", help="planner/grounding calls and time: from scratch vs with learned skills",
                        description="Repeated task families on the playground app, each measured task "
                        "run from scratch (memory off) and again after warm-up runs taught the memory.")
    from .bench.skills import add_arguments as add_skills_bench_arguments

    add_skills_bench_arguments(b)

    b = bsub.add_parser("scale", help="growth: parse time vs RapidOCR by screen size, recall vs library size",
                        description="Parse time and words found against plain RapidOCR on generated "
                        "screens at several sizes, skill recall time and database size at several "
                        "library sizes, and skills vs scratch time; ratios in one run.")
    from .bench.scale import add_arguments as add_scale_bench_arguments

    add_scale_bench_arguments(b)
    b = bsub.add_parser("replay", help="record demonstrations on the playground, replay them under "
                        "perturbations: ours vs naive", description="Records 6 demonstrations with real input, "
                        "replays each under 10 perturbations with gui-agent's replay and with a naive "
                        "recorded-coordinate replay.")
    from .bench.replay_bench import add_arguments as add_replay_bench_arguments

    add_replay_bench_arguments(b)
    b = bsub.add_parser("retrieval", help="skill retrieval accuracy on the labelled task phrasings",
                        description="Top-1 accuracy and false-run rate of skill recall on "
                        "datasets/skill_retrieval.yaml (or --dataset FILE).")
    b.add_argument("--dataset", type=Path, help="a labelled retrieval YAML file")
    b = bsub.add_parser("batch", help="a suite with the local runner vs on Ray (--ray local), and "
                        "what one desktop worker costs", description="Runs the suite with the local "
                        "runner and on a local Ray cluster at each worker count: wall time, Ray's "
                        "overhead per task, CPU and peak memory per desktop worker (needs Ray).")
    from .bench.batch_bench import add_arguments as add_batch_bench_arguments

    add_batch_bench_arguments(b)

    from .commands.models import add_models_parser

    add_models_parser(sub)

    from .commands.memory import add_memory_parser
    from .commands.skills import add_skills_parser

    add_skills_parser(sub)
    add_memory_parser(sub)
    from .commands.record import add_record_parsers
    from .commands.replay import add_replay_parser

    add_record_parsers(sub)
    add_replay_parser(sub)
    return parser


def _options_after(argv: list[str], command: str) -> list[str]:
    """The words after the command's name: what `playground` and `app` parse again themselves.

    Only flags that take no value (-v, --verbose) can come before the command, so its first
    occurrence is the command itself.
    """
    return argv[argv.index(command) + 1:]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        if args.command == "run":
            from .commands.run import run_command

            return run_command(args)
        if args.command == "screenshot":
            from .commands.screenshot import screenshot_command

            return screenshot_command(args)
        if args.command == "playground":
            from .playground import main as playground_main

            return playground_main(_options_after(argv, "playground"))
        if args.command == "app":
            from ui.main import main as app_main

            return app_main(_options_after(argv, "app"))
        if args.command == "demo":
            from .demo import run_demo

            return run_demo(out=args.out, headless=args.headless, only=args.tasks)
        if args.command == "bench" and args.bench == "miniwob":
            from .bench.miniwob import run_miniwob_bench

            return run_miniwob_bench(args)
        if args.command == "bench" and args.bench == "scale":
            from .bench.scale import run_scale_bench

            return run_scale_bench(args)
        if args.command == "bench" and args.bench == "skills":
            from .bench.skills import run_skills_bench

            return run_skills_bench(args)
        if args.command == "bench" and args.bench == "replay":
            from .bench.replay_bench import run_replay_bench

            return run_replay_bench(args)
        if args.command == "bench" and args.bench == "retrieval":
            from .bench.retrieval import evaluate, format_report

            report = evaluate(args.dataset)
            print(format_report(report))
            good = report.overall.top1 >= 0.95 and report.overall.false_run_rate <= 0.02
            return EXIT_OK if good else EXIT_FAILED
        if args.command == "bench" and args.bench == "vlm":
            from .bench.vlm import run_vlm_bench

            return run_vlm_bench(args)
        if args.command == "bench" and args.bench == "batch":
            from .bench.batch_bench import run_batch_bench

            return run_batch_bench(args)
        if args.command == "models":
            from .commands.models import models_command

            return models_command(args)
        if args.command == "batch":
            from .commands.batch import batch_command

            return batch_command(args)
        if args.command == "skills":
            from .commands.skills import skills_command

            return skills_command(args)
        if args.command == "record":
            from .commands.record import record_command

            return record_command(args)
        if args.command == "compile":
            from .commands.record import compile_command

            return compile_command(args)
        if args.command == "replay":
            from .commands.replay import replay_command

            return replay_command(args)
        if args.command == "memory":
            from .commands.memory import memory_command

            return memory_command(args)
        if args.command == "bench":
            from .bench.latency import run_latency_bench

            return run_latency_bench(args)
    except GuiAgentError as exc:
        print(f"gui-agent: error: {printable(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("gui-agent: interrupted", file=sys.stderr)
        return 130
    parser.error(f"unknown command {args.command}")
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
