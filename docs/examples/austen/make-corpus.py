#!/usr/bin/env python3
"""Writes austen.jsonl, the example corpus of docs/examples/austen, from the
Debian package r-cran-janeaustenr 1.0.0-1 (MIT; the novels' text is in the
public domain, from Project Gutenberg):

    apt-get download r-cran-janeaustenr
    dpkg-deb -x r-cran-janeaustenr_1.0.0-1_all.deb pkg
    python3 make-corpus.py pkg/usr/lib/R/site-library/janeaustenr/data/Rdata > austen.jsonl

It reads the package's R lazy-load database (no R needed), splits Pride and
Prejudice and Persuasion into paragraphs (runs of non-blank lines), keeps
those of 40 to 120 words, and takes 200 evenly spaced ones from each novel.
Each line is {"text", "book", "dialogue", "split"}: dialogue is true when the
paragraph holds a quotation mark; split is "train" for the first 140 of a
novel's paragraphs and "test" for the last 60 (a split by position in the
book, as 20 Newsgroups' is by date).
"""
import gzip, json, struct, sys, zlib


class Unserializer:
    """The subset of R's XDR serialization the package's objects use."""

    def __init__(self, b):
        self.b, self.p, self.refs = b, 0, []

    def int(self):
        v = struct.unpack('>i', self.b[self.p:self.p + 4])[0]
        self.p += 4
        return v

    def header(self):
        assert self.b[:2] == b'X\n'
        self.p = 2
        version = self.int()
        self.int(), self.int()
        if version == 3:
            n = self.int()  # the native encoding's name
            self.p += n

    def item(self):
        flags = self.int()
        t, has_attr, has_tag = flags & 0xff, flags & (1 << 9), flags & (1 << 10)
        if t in (242, 251, 253, 254):  # empty env, missing arg, global env, NULL
            return None
        if t == 255:
            return self.refs[(flags >> 8) - 1]
        if t == 1:  # symbol
            x = self.item()
            self.refs.append(x)
            return x
        if t == 9:  # CHARSXP
            n = self.int()
            if n == -1:
                return None
            v = self.b[self.p:self.p + n].decode('utf-8')
            self.p += n
            return v
        if t == 2:  # pairlist
            if has_attr:
                self.item()
            tag = self.item() if has_tag else None
            car, cdr = self.item(), self.item()
            return [(tag, car)] + (cdr if isinstance(cdr, list) else [])
        if t in (16, 19):
            v = [self.item() for _ in range(self.int())]
        elif t in (10, 13):
            v = [self.int() for _ in range(self.int())]
        elif t == 14:
            n = self.int()
            v = list(struct.unpack('>%dd' % n, self.b[self.p:self.p + 8 * n]))
            self.p += 8 * n
        else:
            raise ValueError('R type %d' % t)
        if has_attr:
            return (v, dict(self.item()))
        return v


def load(base):
    u = Unserializer(gzip.decompress(open(base + '.rdx', 'rb').read()))
    u.header()
    (variables, _, _), _ = u.item()
    offsets, attrs = variables
    rdb = open(base + '.rdb', 'rb').read()
    out = {}
    for name, (off, length) in zip(attrs['names'], offsets):
        off, length = int(off), int(length)
        r = Unserializer(zlib.decompress(rdb[off + 4:off + length]))
        r.header()
        out[name] = r.item()
    return out


def paragraphs(lines):
    cur = []
    for line in lines + ['']:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            yield ' '.join(cur)
            cur = []


def main():
    novels = load(sys.argv[1])
    for book in ['prideprejudice', 'persuasion']:
        ps = [p for p in paragraphs(novels[book]) if 40 <= len(p.split()) <= 120]
        step = len(ps) / 200
        chosen = [ps[int(i * step)] for i in range(200)]
        for i, p in enumerate(chosen):
            rec = {'text': p, 'book': book, 'dialogue': '"' in p, 'split': 'train' if i < 140 else 'test'}
            print(json.dumps(rec, ensure_ascii=False))


if __name__ == '__main__':
    main()
