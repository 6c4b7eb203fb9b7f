"""Train the reference parser's CRF (python-crfsuite) from parser/convert.py's output; byte-stable.

The references are used in file order (convert.py writes them sorted), every token labelled with the span it
starts in, the features of kg.refs.crf; L-BFGS with fixed parameters (below), features seen fewer than
``MINFREQ`` times dropped and L1 regularisation pruning the rest, so the model stays small and holds no word of a
single reference. The same inputs give the same bytes (``make -C parser check`` trains twice and compares).

    python parser/train.py build/training.jsonl ../kg/data/parser.crfsuite
"""

from __future__ import annotations

import bisect
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import pycrfsuite  # noqa: E402

from kg.refs.crf import features, tokenize  # noqa: E402

PARAMS = {"c1": 0.5, "c2": 0.01, "max_iterations": 150, "feature.minfreq": 3,
          "feature.possible_transitions": True, "feature.possible_states": False}


def token_labels(text: str, spans: list[list[int | str]]) -> tuple[list[list[str]], list[str]]:
    """Features and labels of every token of one labelled reference."""
    tokens = tokenize(text)
    starts = [int(s[0]) for s in spans]
    labels = []
    for t in tokens:
        k = bisect.bisect_right(starts, t.start) - 1
        inside = k >= 0 and t.start < int(spans[k][1])
        labels.append(str(spans[k][2]) if inside else "other")
    return features(text, tokens), labels


def main(argv: list[str]) -> int:
    src, dst = Path(argv[1]), Path(argv[2])
    trainer = pycrfsuite.Trainer(algorithm="lbfgs", verbose=False)
    trainer.set_params(PARAMS)
    n = 0
    t0 = time.perf_counter()
    with open(src, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            xseq, yseq = token_labels(rec["text"], rec["spans"])
            if xseq:
                trainer.append(xseq, yseq)
                n += 1
    dst.parent.mkdir(parents=True, exist_ok=True)
    trainer.train(str(dst))
    print(f"{dst}: {n} references, {dst.stat().st_size} bytes, {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
