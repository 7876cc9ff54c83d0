package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Hand-written inputs that break one rule each, checked for the rule and the offset. */
class CanonicalCborRejectionTest {
  private static final HexFormat HEX = HexFormat.of();

  private static CborDecodeException rejection(byte[] input, CborLimits limits) {
    try {
      CborValue v = CanonicalCbor.decode(input, limits);
      return fail("accepted " + HEX.formatHex(input) + " as " + v);
    } catch (CborDecodeException e) {
      return e;
    }
  }

  private static void assertRejected(String hex, CborRule rule, long offset) {
    CborDecodeException e = rejection(HEX.parseHex(hex), CborLimits.DEFAULT);
    assertThat(e.rule()).as("rule for %s (%s)", hex, e.getMessage()).isEqualTo(rule);
    assertThat(e.offset()).as("offset for %s (%s)", hex, e.getMessage()).isEqualTo(offset);
  }

  @Test
  void decode_whenFloat_refusesAsForbiddenSimple() {
    assertRejected("f93c00", CborRule.FORBIDDEN_SIMPLE, 0); // half 1.0
    assertRejected("fa47c35000", CborRule.FORBIDDEN_SIMPLE, 0); // single 100000.0
    assertRejected("fb3ff199999999999a", CborRule.FORBIDDEN_SIMPLE, 0); // double 1.1
    assertRejected("f90000", CborRule.FORBIDDEN_SIMPLE, 0); // 0.0, which an int could express
    assertRejected("8201f93c00", CborRule.FORBIDDEN_SIMPLE, 2); // inside an array
  }

  @Test
  void decode_whenBooleanNullUndefinedOrSimple_refusesAsForbiddenSimple() {
    for (String hex :
        new String[] {"f4", "f5", "f6", "f7", "e0", "f0", "f3", "f820", "f8ff", "f818"}) {
      assertRejected(hex, CborRule.FORBIDDEN_SIMPLE, 0);
    }
    assertRejected("a16161f5", CborRule.FORBIDDEN_SIMPLE, 3); // {"a": true}
  }

  @Test
  void decode_whenStrayBreak_refusesAsForbiddenSimple() {
    // 0xff outside an indefinite item is major type 7, additional information 31.
    assertRejected("ff", CborRule.FORBIDDEN_SIMPLE, 0);
    assertRejected("8101ff", CborRule.TRAILING_BYTES, 2);
  }

  @Test
  void decode_whenReservedAdditionalInformation_refuses() {
    for (int major = 0; major < 7; major++) {
      for (int info = 28; info <= 30; info++) {
        String hex = HEX.toHexDigits((byte) (major << 5 | info));
        assertRejected(hex, CborRule.RESERVED_ADDITIONAL_INFO, 0);
      }
    }
  }

  @Test
  void decode_whenIndefiniteLength_refusesAtTheHead() {
    assertRejected("5f42010243030405ff", CborRule.INDEFINITE_LENGTH, 0);
    assertRejected("7f657374726561646d696e67ff", CborRule.INDEFINITE_LENGTH, 0);
    assertRejected("9fff", CborRule.INDEFINITE_LENGTH, 0);
    assertRejected("bf61610161629f0203ffff", CborRule.INDEFINITE_LENGTH, 0);
    assertRejected("826161bf61626163ff", CborRule.INDEFINITE_LENGTH, 3);
    // Integers and tags have no indefinite form: additional information 31 is malformed there.
    assertRejected("1f", CborRule.INDEFINITE_LENGTH, 0);
    assertRejected("df", CborRule.INDEFINITE_LENGTH, 0);
  }

  @Test
  void decode_whenTextIsNotUtf8_refusesAsInvalidUtf8() {
    assertRejected("61ff", CborRule.INVALID_UTF8, 0); // never valid
    assertRejected("62c080", CborRule.INVALID_UTF8, 0); // overlong NUL
    assertRejected("63e08080", CborRule.INVALID_UTF8, 0); // overlong three-byte
    assertRejected("63eda080", CborRule.INVALID_UTF8, 0); // encoded surrogate U+D800
    assertRejected("62e282", CborRule.INVALID_UTF8, 0); // truncated sequence
    assertRejected("64f4908080", CborRule.INVALID_UTF8, 0); // above U+10FFFF
    assertRejected("6180", CborRule.INVALID_UTF8, 0); // lone continuation byte
    assertRejected("8261616180", CborRule.INVALID_UTF8, 3); // second item of an array
  }

  @Test
  void decode_whenTextIsValidUtf8IncludingNoncharacters_accepts() throws Exception {
    // U+FFFE is a noncharacter but well-formed UTF-8; the profile does not police code points.
    assertThat(CanonicalCbor.decode(HEX.parseHex("63efbfbe"))).isEqualTo(new CborText("\uFFFE"));
    assertThat(CanonicalCbor.decode(HEX.parseHex("64f0908591")))
        .isEqualTo(new CborText("\uD800\uDD51"));
  }

  @Test
  void decode_whenUnsignedAboveSignedRange_refusesAsIntegerRange() {
    assertRejected("1b8000000000000000", CborRule.INTEGER_RANGE, 0); // 2^63
    assertRejected("1bffffffffffffffff", CborRule.INTEGER_RANGE, 0); // 2^64-1
    assertRejected("3b8000000000000000", CborRule.INTEGER_RANGE, 0); // -2^63-1
    assertRejected("3bffffffffffffffff", CborRule.INTEGER_RANGE, 0); // -2^64
    assertRejected("db800000000000000000", CborRule.INTEGER_RANGE, 0); // tag 2^63
    assertRejected("a1011bffffffffffffffff", CborRule.INTEGER_RANGE, 2);
  }

  @Test
  void decode_atTheSignedRangeEdges_accepts() throws Exception {
    assertThat(CanonicalCbor.decode(HEX.parseHex("1b7fffffffffffffff")))
        .isEqualTo(new CborInt(Long.MAX_VALUE));
    assertThat(CanonicalCbor.decode(HEX.parseHex("3b7fffffffffffffff")))
        .isEqualTo(new CborInt(Long.MIN_VALUE));
    assertThat(CanonicalCbor.decode(HEX.parseHex("db7fffffffffffffff00")))
        .isEqualTo(new CborTag(Long.MAX_VALUE, new CborInt(0)));
  }

  @Test
  void decode_whenNonShortestAtEveryWidth_refusesAsNonShortest() {
    assertRejected("1800", CborRule.NON_SHORTEST, 0);
    assertRejected("1817", CborRule.NON_SHORTEST, 0);
    assertRejected("190018", CborRule.NON_SHORTEST, 0);
    assertRejected("1900ff", CborRule.NON_SHORTEST, 0);
    assertRejected("1a0000ffff", CborRule.NON_SHORTEST, 0);
    assertRejected("1b00000000ffffffff", CborRule.NON_SHORTEST, 0);
    assertRejected("3817", CborRule.NON_SHORTEST, 0); // -24 in two bytes
    assertRejected("5800", CborRule.NON_SHORTEST, 0); // empty byte string, long length
    assertRejected("780161", CborRule.NON_SHORTEST, 0);
    assertRejected("9800", CborRule.NON_SHORTEST, 0);
    assertRejected("b800", CborRule.NON_SHORTEST, 0);
    assertRejected("d80100", CborRule.NON_SHORTEST, 0); // tag 1 in two bytes
    assertRejected("8201180a", CborRule.NON_SHORTEST, 2);
  }

  @Test
  void nonShortest_saysWhereTheCanonicalFormPutsTheValue() {
    assertThat(rejection(HEX.parseHex("1807"), CborLimits.DEFAULT))
        .hasMessageContaining(
            "the value 7 is written in a 1-byte argument; canonical CBOR writes it in the head"
                + " itself");
    assertThat(rejection(HEX.parseHex("1a0000012c"), CborLimits.DEFAULT))
        .hasMessageContaining(
            "the value 300 is written in a 4-byte argument; canonical CBOR writes it in a 2-byte"
                + " argument");
    assertThat(rejection(HEX.parseHex("1b00000000ffffffff"), CborLimits.DEFAULT))
        .hasMessageContaining("canonical CBOR writes it in a 4-byte argument");
  }

  @Test
  void decode_atEveryWidthBoundary_acceptsTheShortestForm() throws Exception {
    for (long v : RandomCbor.BOUNDARIES) {
      byte[] bytes = new CborInt(v).encode();
      assertThat(CanonicalCbor.decode(bytes)).isEqualTo(new CborInt(v));
      byte[] negative = new CborInt(-1 - v).encode();
      assertThat(CanonicalCbor.decode(negative)).isEqualTo(new CborInt(-1 - v));
    }
  }

  @Test
  void decode_whenKeysOutOfOrderOrRepeated_refusesAtTheSecondKey() {
    assertRejected("a2616201616102", CborRule.UNSORTED_KEYS, 4); // {"b":1,"a":2}
    assertRejected("a2626161016162", CborRule.UNSORTED_KEYS, 5); // {"aa":..,"b":..}
    assertRejected("a220010102", CborRule.UNSORTED_KEYS, 3); // {-1:..,1:..}
    assertRejected("a2616101616102", CborRule.DUPLICATE_KEY, 4); // {"a":1,"a":2}
    assertRejected("a201010102", CborRule.DUPLICATE_KEY, 3); // {1:1,1:2}
  }

  @Test
  void decode_whenTrailingBytes_refusesAtTheFirstExtraByte() {
    assertRejected("0000", CborRule.TRAILING_BYTES, 1);
    assertRejected("a0a0", CborRule.TRAILING_BYTES, 1);
    assertRejected("6161ff", CborRule.TRAILING_BYTES, 2);
  }

  @Test
  void decode_whenEmptyOrCutShort_refusesAsTruncated() {
    assertRejected("", CborRule.TRUNCATED, 0);
    assertRejected("19", CborRule.TRUNCATED, 1);
    assertRejected("1b00000001", CborRule.TRUNCATED, 1);
    assertRejected("8201", CborRule.LENGTH_LIMIT, 0); // declared two items, one byte left
    assertRejected("830101", CborRule.LENGTH_LIMIT, 0); // three items, two bytes left
    assertRejected("82018201", CborRule.LENGTH_LIMIT, 2); // the inner array lies
    assertRejected("a16161", CborRule.TRUNCATED, 3); // the value is missing
    assertRejected("6461", CborRule.LENGTH_LIMIT, 0); // four bytes of text declared, one there
  }
}
