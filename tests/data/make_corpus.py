#!/usr/bin/env python3
"""make_corpus.py - writes the Matrix Market test corpus (tests/data/valid,
tests/data/bad and bad/EXPECT.tsv). The files are committed; this script
documents how each was made and regenerates them byte for byte (gzip
members are written with mtime 0). Run from anywhere:
    python3 tests/data/make_corpus.py
Each bad file has one line in EXPECT.tsv: file, status, line, and a
substring of the message; tests/test_mm_bad.c checks all four (plus that
the message starts with the file name). The expected dense matrices of the
valid files are written out by hand in valid/EXPECT.tsv (not by this
script), which tests/test_mm_read.c reads."""
import gzip, io, os, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
VALID = os.path.join(HERE, "valid")
BAD = os.path.join(HERE, "bad")
os.makedirs(VALID, exist_ok=True)
os.makedirs(BAD, exist_ok=True)


def gz(data):
    b = io.BytesIO()
    with gzip.GzipFile(fileobj=b, mode="wb", mtime=0, filename="") as g:
        g.write(data)
    return b.getvalue()


def put(folder, name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


B = "%%MatrixMarket matrix coordinate real general\n"

# ---------------------------------------------------------------- valid
V = {}
V["real_general.mtx"] = B + "% a 3 x 4 matrix\n3 4 5\n1 1 1.5\n1 3 -2\n2 2 3.25\n3 1 4\n3 4 -5e-1\n"
V["integer_general.mtx"] = (
    "%%MatrixMarket matrix coordinate integer general\n3 3 4\n1 1 +3\n2 3 -7\n3 2 0\n3 3 123456789012\n")
V["pattern_general.mtx"] = (
    "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n2 1\n2 3\n3 3\n")
V["real_symmetric.mtx"] = (
    "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 -1\n3 3 2\n")
V["pattern_symmetric.mtx"] = (
    "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n3 1\n2 2\n")
V["integer_symmetric.mtx"] = (
    "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 -4\n1 1 9\n")
V["skew.mtx"] = (
    "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -2\n")
V["upper_symmetric.mtx"] = (
    "%%MatrixMarket matrix coordinate real symmetric\n"
    "% an entry above the diagonal is mirrored like any other\n3 3 2\n1 3 7\n2 2 1\n")
V["array_general.mtx"] = (
    "%%MatrixMarket matrix array real general\n% 3 x 2, column-major\n3 2\n1\n0\n3\n4\n5\n0\n")
V["array_integer.mtx"] = "%%MatrixMarket matrix array integer general\n2 2\n1\n-2\n3\n-4\n"
V["array_symmetric.mtx"] = (
    "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n")
V["array_skew.mtx"] = (
    "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n")
V["crlf.mtx"] = (B + "% CRLF line ends\n2 2 2\n1 1 1.5\n2 2 -2\n\n").replace("\n", "\r\n")
V["tabs_spaces.mtx"] = (
    "%%MatrixMarket\tmatrix   coordinate \t real  general   \n"
    "  2\t3    2  \n"
    "\t1 \t 3\t\t 2.5   \n"
    "   2  1   -1\t\n")
V["comments_blank.mtx"] = (
    B + "%\n% comments and blank lines anywhere after the banner\n\n"
    "3 3 3\n\n% between entries\n1 1 1\n   \n  % indented comment\n\t\n2 2 2\n"
    "%%MatrixMarket looks like a banner but is a comment here\n3 3 3\n\n% trailing comment\n")
V["numeric_forms.mtx"] = (
    B + "1 13 13\n"
    "1 1 +3\n1 2 -.5\n1 3 1.5E+03\n1 4 1.\n1 5 .25e1\n1 6 -0\n1 7 0e0\n"
    "1 8 4.9406564584124654e-324\n1 9 1.7976931348623157e+308\n"
    "1 10 0.1000000000000000055511151231257827021181583404541015625\n"
    "1 11 INF\n1 12 -Infinity\n00001 0013 1e-400\n")
V["nan.mtx"] = B + "1 2 2\n1 1 nan\n1 2 -NaN\n"
V["duplicates.mtx"] = (
    B + "% duplicates are summed in file order; a sum of 0 stays an explicit zero\n"
    "2 3 6\n1 1 1\n2 3 5\n1 1 2\n2 2 1.5\n1 1 0.25\n2 2 -1.5\n")
V["duplicates_symmetric.mtx"] = (
    "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n2 1 1\n2 1 2\n1 1 4\n")
V["explicit_zeros.mtx"] = B + "2 2 3\n1 1 0\n2 1 0.0\n2 2 -0.0\n"
V["empty_rows.mtx"] = B + "5 3 3\n2 1 1\n2 3 2\n4 2 3\n"
V["rect_tall.mtx"] = B + "5 2 3\n5 2 1\n1 1 2\n3 2 3\n"
V["rect_wide.mtx"] = B + "2 5 3\n2 5 1\n1 1 2\n1 4 3\n"
V["nnz0.mtx"] = B + "3 4 0\n"
V["zero_by_zero.mtx"] = B + "0 0 0\n"
V["one_by_one.mtx"] = B + "1 1 1\n1 1 -7.5\n"
V["banner_case.mtx"] = "%%matrixmarket MATRIX Coordinate DOUBLE General\n1 2 1\n1 2 3\n"
V["no_final_newline.mtx"] = B + "2 2 2\n1 1 1\n2 2 2"
V["bom.mtx"] = "\ufeff" + B + "1 1 1\n1 1 5\n"
# Rows out of order, one long row (40 entries, beyond the insertion sort)
# in reverse order with a duplicate: exercises the stable merge sort.
rows = ["%%MatrixMarket matrix coordinate real general\n3 50 45\n"]
rows += ["3 3 1\n", "1 2 2\n", "3 1 3\n", "1 1 4\n"]
rows += ["2 %d %d\n" % (c, c) for c in range(40, 0, -1)]
rows += ["2 7 0.5\n"]
V["unsorted.mtx"] = "".join(rows)
big_comment = "%" + "x" * (5 << 20) + "\n"          # longer than the 4 MiB window
big_blank = " " * (5 << 20)                          # blanks before an entry
V["long_lines.mtx.gz"] = gz((B + big_comment + "2 2 2\n" + big_comment + big_blank +
                             "1 1 1\n" + big_comment + "2 2 2\n" + big_comment).encode())
V["gzip.mtx.gz"] = gz(V["real_general.mtx"].encode())
V["gzip_nosuffix.mtx"] = gz(V["real_general.mtx"].encode())
half = len(V["real_general.mtx"]) // 2 + 3            # split inside a line
V["gzip_multimember.mtx.gz"] = (gz(V["real_general.mtx"][:half].encode()) +
                                gz(V["real_general.mtx"][half:].encode()))
# vectors (for smv_mm_read_vector)
V["vec_col.mtx"] = "%%MatrixMarket matrix array real general\n3 1\n1.5\n-2\n0\n"
V["vec_row.mtx"] = "%%MatrixMarket matrix array real general\n1 3\n1.5\n-2\n0\n"
V["vec_coord.mtx"] = B + "4 1 2\n3 1 7\n1 1 -1\n"
V["vec_coord_row.mtx"] = B + "1 4 1\n1 2 3\n"
for k, v in V.items():
    put(VALID, k, v)

# ---------------------------------------------------------------- bad
E = []  # (file, status, line, substring)


def bad(name, data, status, line, sub):
    put(BAD, name, data)
    E.append((name, status, line, sub))


P, U, O = "SMV_ERR_PARSE", "SMV_ERR_UNSUPPORTED", "SMV_ERR_OVERFLOW"
bad("empty.mtx", "", P, 0, "empty file")
bad("no_banner.mtx", "3 3 1\n1 1 1\n", P, 1, "missing Matrix Market banner")
bad("banner_indented.mtx", " " + B + "1 1 0\n", P, 1, "missing Matrix Market banner")
bad("banner_glued.mtx", "%%MatrixMarketmatrix coordinate real general\n1 1 0\n", P, 1,
    "missing Matrix Market banner")
bad("banner_only_magic.mtx", "%%MatrixMarket\n1 1 0\n", P, 1, "banner: missing object")
bad("banner_object.mtx", "%%MatrixMarket vector coordinate real general\n1 1 0\n", P, 1,
    "unknown object 'vector'")
bad("banner_format.mtx", "%%MatrixMarket matrix sparse real general\n1 1 0\n", P, 1,
    "unknown format 'sparse'")
bad("banner_field.mtx", "%%MatrixMarket matrix coordinate float general\n1 1 0\n", P, 1,
    "unknown field 'float'")
bad("banner_symmetry.mtx", "%%MatrixMarket matrix coordinate real upper\n1 1 0\n", P, 1,
    "unknown symmetry 'upper'")
bad("banner_no_symmetry.mtx", "%%MatrixMarket matrix coordinate real\n1 1 0\n", P, 1,
    "banner: missing symmetry")
bad("banner_extra.mtx", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", P, 1,
    "unexpected 'extra' after the symmetry")
bad("banner_nul.mtx", "%%MatrixMarket matrix\0 coordinate real general\n1 1 0\n", P, 1,
    "unknown object 'matrix\\x00'")
bad("complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n", U, 1,
    "complex matrices are not supported")
bad("hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", U, 1,
    "hermitian matrices are not supported")
bad("array_pattern.mtx", "%%MatrixMarket matrix array pattern general\n1 1\n", P, 1,
    "pattern field is not allowed with the array format")
bad("skew_pattern.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n",
    P, 1, "pattern matrix cannot be skew-symmetric")
bad("no_size.mtx", B + "% only comments\n\n% here\n", P, 4, "missing size line")
bad("size_short.mtx", B + "3 3\n1 1 1\n", P, 2, "size line: missing entry count")
bad("size_garbage.mtx", B + "3 x 3\n", P, 2, "size line: 'x' is not an integer")
bad("size_float.mtx", B + "% c\n3.0 3 1\n1 1 1\n", P, 3, "size line: '3.0' is not an integer")
bad("size_extra.mtx", B + "3 3 1 7\n1 1 1\n", P, 2, "unexpected '7' after the entry count")
bad("size_negative.mtx", B + "-3 3 1\n1 1 1\n", P, 2, "negative row count -3")
bad("size_array_extra.mtx", "%%MatrixMarket matrix array real general\n2 2 4\n1\n2\n3\n4\n", P, 2,
    "unexpected '4' after the column count")
bad("dims_overflow.mtx", B + "3000000000 3 1\n1 1 1\n", O, 2,
    "row count 3000000000 exceeds the int32 index limit")
bad("cols_overflow.mtx", B + "3 2147483648 1\n1 1 1\n", O, 2,
    "column count 2147483648 exceeds the int32 index limit")
bad("nnz_overflow.mtx", B + "3 3 3000000000\n1 1 1\n", O, 2,
    "3000000000 entries exceed the limit of 2147483647")
bad("array_overflow.mtx", "%%MatrixMarket matrix array real general\n100000 100000\n1\n", O, 2,
    "holds 10000000000 entries")
bad("array_sym_overflow.mtx", "%%MatrixMarket matrix array real symmetric\n50000 50000\n1\n", O, 2,
    "after symmetric expansion")
bad("sym_not_square.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", P, 2,
    "symmetric matrix must be square, not 3 x 4")
bad("skew_not_square.mtx", "%%MatrixMarket matrix array real skew-symmetric\n4 3\n1\n", P, 2,
    "skew-symmetric matrix must be square")
bad("row_zero.mtx", B + "3 3 2\n1 1 1\n0 1 1\n", P, 4, "row index 0 out of range 1..3")
bad("col_beyond.mtx", B + "3 3 2\n1 1 1\n2 4 1\n", P, 4, "column index 4 out of range 1..3")
bad("index_huge.mtx", B + "3 3 1\n99999999999999999999 1 1\n", P, 3,
    "row index 99999999999999999999 out of range 1..3")
bad("index_negative.mtx", B + "3 3 1\n-1 1 1\n", P, 3, "bad row index '-1'")
bad("index_float.mtx", B + "3 3 1\n1 1.5 1\n", P, 3, "bad column index '1.5'")
bad("missing_col.mtx", B + "3 3 1\n2\n", P, 3, "missing column index")
bad("missing_value.mtx", B + "3 3 2\n1 1 1\n2 2 \r\n", P, 4, "missing value")
bad("bad_value.mtx", B + "3 3 1\n1 1 abc\n", P, 3, "bad real value 'abc'")
bad("value_overflow.mtx", B + "3 3 1\n1 1 -1e999\n", P, 3, "value '-1e999' overflows double")
bad("value_hex.mtx", B + "3 3 1\n1 1 0x1p3\n", P, 3, "bad real value '0x1p3'")
bad("value_nan_payload.mtx", B + "3 3 1\n1 1 nan(7)\n", P, 3, "bad real value 'nan(7)'")
bad("value_fortran.mtx", B + "3 3 1\n1 1 1.0D+03\n", P, 3, "bad real value '1.0D+03'")
bad("value_exponent.mtx", B + "3 3 1\n1 1 1e\n", P, 3, "bad real value '1e'")
bad("value_sign_only.mtx", B + "3 3 2\n1 1 1\n1 2 -\n", P, 4, "bad real value '-'")
bad("value_point_only.mtx", B + "3 3 1\n1 1 .\n", P, 3, "bad real value '.'")
bad("value_comma.mtx", B + "3 3 1\n1 1 1,5\n", P, 3, "bad real value '1,5'")
bad("nul_byte.mtx", B + "3 3 1\n1 1 1\x005\n", P, 3, "bad real value '1\\x005'")
bad("integer_fraction.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", P,
    3, "bad integer value '1.5'")
bad("integer_inf.mtx", "%%MatrixMarket matrix array integer general\n1 1\ninf\n", P, 3,
    "bad integer value 'inf'")
bad("trailing_garbage.mtx", B + "3 3 1\n1 1 1.0 junk\n", P, 3, "unexpected 'junk' after the value")
bad("trailing_comment.mtx", B + "3 3 1\n1 1 1.0 % note\n", P, 3, "unexpected '%' after the value")
bad("pattern_value.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.0\n", P,
    3, "a pattern entry has no value")
bad("too_many.mtx", B + "3 3 2\n1 1 1\n2 2 2\n\n3 3 3\n", P, 6,
    "too many entries (the size line says 2)")
bad("too_few.mtx", B + "3 3 5\n1 1 1\n2 2 2\n3 3 3\n% end\n", P, 6,
    "the file ends after 3 of 5 entries")
bad("huge_claim.mtx", B + "2000000 2000000 2000000000\n1 1 1\n", P, 3,
    "the file ends after 1 of 2000000000 entries")
bad("huge_claim.mtx.gz", gz((B + "2000000 2000000 2000000000\n1 1 1\n2 2 2\n").encode()), P, 4,
    "the file ends after 2 of 2000000000 entries")
bad("skew_diagonal.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n",
    P, 4, "diagonal entry (2,2) in a skew-symmetric matrix")
bad("array_too_many.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n", P, 5,
    "too many values (a 2 x 1 general array holds 2)")
bad("array_too_few.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n", P, 7,
    "the file ends after 5 of 6 values")
bad("array_two_per_line.mtx", "%%MatrixMarket matrix array real general\n2 1\n1 2\n", P, 3,
    "an array file has one value per line")
bad("old_mac_cr.mtx", (B + "2 2 1\n1 1 1\n").replace("\n", "\r"), P, 1,
    "the file uses CR line endings")  # CR-only line ends: the whole file is one banner line
good = gz(V["real_general.mtx"].encode())
bad("truncated.mtx.gz", good[: len(good) // 2], P, 0, "truncated gzip data")
bad("gzip_magic_only.mtx.gz", b"\x1f\x8b", P, 0, "truncated gzip data")
corrupt = bytearray(good)
corrupt[10] = 0xFF  # first deflate block header: BTYPE 11 is reserved
bad("corrupt.mtx.gz", bytes(corrupt), P, 0, "corrupt gzip data (invalid block type)")
crc = bytearray(good)
crc[-6] ^= 0x01  # CRC32 field of the trailer
bad("bad_crc.mtx.gz", bytes(crc), P, 0, "corrupt gzip data (incorrect data check)")
bad("gzip_trailing.mtx.gz", good + b"garbage after the stream", P, 0,
    "unexpected data after the end of the gzip stream")
bad("gzip_empty.mtx.gz", gz(b""), P, 0, "empty file")
bad("long_line.mtx.gz", gz((B + "1 1 1\n1 1 " + "1" * (5 << 20) + "\n").encode()), P, 3,
    "line longer than 4194304 bytes")
bad("long_comment_eof.mtx.gz", gz((B + "3 3 3\n1 1 1\n2 2 2\n%" + "c" * (5 << 20)).encode()), P, 5,
    "the file ends after 2 of 3 entries")  # a 5 MiB comment without '\n' is line 5
bad("long_banner.mtx.gz", gz((B[:-1] + " " * (5 << 20) + "\n1 1 0\n").encode()), P, 1,
    "line 1 is longer than 4194304 bytes")
# Binary input whose first line holds a bare CR: its own message, not "CR
# line endings" (issue 25, item 16), short and past the line limit.
bad("binary_cr.mtx", b"\x7fELF\x02\x01\x01\x00\x00\rmore\x00\x03\n", P, 1,
    "binary data (byte 0x7f at offset 0 of the first line), not a Matrix Market text file")
bad("binary_long.mtx.gz", gz(b"%%Matrix\r" + bytes(range(1, 9)) * (5 << 17)), P, 1,
    "binary data (byte 0x01 at offset 9), not a Matrix Market text file")

with open(os.path.join(BAD, "EXPECT.tsv"), "w") as f:
    f.write("# file\tstatus\tline\tmessage substring (tests/test_mm_bad.c)\n")
    for e in E:
        f.write("%s\t%s\t%d\t%s\n" % e)
print("%d valid, %d bad" % (len(V), len(E)))
