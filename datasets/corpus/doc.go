// Package corpus reads labelled documents in the forms people keep text
// in — JSON Lines, a CSV or TSV table with a text column, a folder per
// class — and registers the "text" dataset plugin, which turns them into
// a document-term matrix with the pipeline of package text (the tokens,
// stop words, n-grams and weightings of the 20news and imdb loaders) and
// keeps the documents for the transforms that read words (kgrams,
// compress, lz77):
//
//	datasets:
//	  - name: text
//	    params: {file: austen.jsonl, label: book, split: split}
//
// A document has a text, a class label and, optionally, a part of a given
// train/test split. Label fields: one field gives the class of each row
// (a string, an integer or true/false); several fields are 0/1 flags of
// which each row sets exactly one, and the class is the name of the flag
// set (Reuters' corn and grain columns as a two-class task). For
// multi-label data, where a row may set several flags, give one dataset
// entry per flag: label: corn reads the flag as the classes false/true.
//
// classes: [a, b] keeps the documents of those classes only, in that class
// order, before the vocabulary is built, so that min_df and max_features
// count the documents the experiment uses (relabel, after loading, would
// leave the vocabulary of the whole corpus).
//
// Input is UTF-8 unless encoding: latin-1 says otherwise; a line (or file)
// that is not is an error at its file and line, as are a missing field, a
// text that is not a string and a label that is not one. So are what
// would merge or split classes in silence: one class written as two JSON
// types (1 and "1"), a key twice in a JSON object, a label with white
// space at its ends, two classes differing only in case or white space;
// and, in a folder corpus, a link to a folder or to nothing (a link to a
// file is read). Documents in folders nested in a class folder count
// into that class, with a warning.
package corpus
