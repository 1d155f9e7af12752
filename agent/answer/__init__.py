"""Answering from evidence: reading rows and sentences, finding values (lexicon and table-cell readers), composing
the cited answer, verifying figures against their spans, and the grounded language-model answer."""
