"""scikit-learn's TF-IDF + logistic regression pipeline as a repro series.

The command method with format: jsonl hands it the raw documents, so the
pipeline tokenizes them itself (TfidfVectorizer), on the same documents,
training samples, folds and test rows as repro's own learners:

    python3 sklearn_text.py train TRAIN.jsonl MODEL --C C [--min-df N] [--ngram-max N] [--seed S]
    python3 sklearn_text.py predict TEST.jsonl MODEL PREDICTIONS
    python3 sklearn_text.py serve

TRAIN has one JSON object a line, {"label": k, "class": name, "text": ...}
(k the class index 0..K-1); TEST has {"text": ...} only. PREDICTIONS is
written in liblinear's -b 1 format, which repro reads with output: labels:
a header "labels c1 ... cm" (the classes of the training rows), then per
row the predicted label and the m class probabilities.

serve speaks repro's serve protocol: it reads one request a line on its
standard input, the JSON array of a train or predict command line as above,
runs it in this process (scikit-learn imported once) and answers "ok" or
"error: MESSAGE" on its standard output. It exits when its input closes.
"""
import argparse
import json
import pickle
import sys
import traceback

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline


def read_jsonl(path):
    texts, labels = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            texts.append(rec["text"])
            labels.append(rec.get("label"))
    return texts, labels


def parse(argv):
    ap = argparse.ArgumentParser(prog="sklearn_text.py")
    ap.add_argument("mode", choices=["train", "predict"])
    ap.add_argument("rows")
    ap.add_argument("model")
    ap.add_argument("predictions", nargs="?")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--min-df", type=int, default=1)
    ap.add_argument("--ngram-max", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args(argv)


def run(a):
    if a.mode == "train":
        texts, labels = read_jsonl(a.rows)
        # scikit-learn's text classification pipeline at its defaults
        # (lowercase, \b\w\w+\b tokens, l2-normalized TF-IDF with smooth
        # idf), with L2 logistic regression (lbfgs, unpenalized intercept).
        pipe = make_pipeline(
            TfidfVectorizer(min_df=a.min_df, ngram_range=(1, a.ngram_max), dtype=np.float64),
            LogisticRegression(C=a.C, solver="lbfgs", tol=1e-6, max_iter=10000, random_state=a.seed),
        )
        pipe.fit(texts, np.asarray(labels, dtype=np.int64))
        # The terms dropped by min_df are kept for introspection only;
        # scikit-learn's documentation says to drop them before pickling.
        pipe.steps[0][1].stop_words_ = None
        with open(a.model, "wb") as f:
            pickle.dump(pipe, f, protocol=pickle.HIGHEST_PROTOCOL)
        return
    with open(a.model, "rb") as f:
        pipe = pickle.load(f)
    texts, _ = read_jsonl(a.rows)
    P = pipe.predict_proba(texts)
    classes = pipe.classes_
    labels = classes[np.argmax(P, axis=1)]
    with open(a.predictions, "w") as f:
        f.write("labels " + " ".join("%d" % c for c in classes) + "\n")
        for lab, row in zip(labels, P):
            f.write("%d %s\n" % (lab, " ".join(repr(float(p)) for p in row)))


def serve():
    """Answers repro's requests: one JSON array a line in, ok / error: out."""
    answer = sys.stdout
    sys.stdout = sys.stderr  # anything printed goes to stderr, not to repro
    for line in sys.stdin:
        try:
            argv = json.loads(line)
            # The request is the whole command line: the interpreter and
            # this script come before the mode.
            at = next(i for i, w in enumerate(argv) if w in ("train", "predict"))
            run(parse(argv[at:]))
            msg = "ok"
        except SystemExit as e:  # argparse refused the arguments
            msg = "error: bad arguments (exit %s)" % e.code
        except Exception as e:  # noqa: BLE001 - every failure is the request's
            traceback.print_exc()
            msg = "error: %s: %s" % (type(e).__name__, " ".join(str(e).split()))
        answer.write(msg + "\n")
        answer.flush()


def main():
    if sys.argv[1:2] == ["serve"]:
        return serve()
    run(parse(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
