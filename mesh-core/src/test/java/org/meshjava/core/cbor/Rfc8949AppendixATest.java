package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Known answers from RFC 8949 Appendix A. The examples that are deterministic and inside our value
 * model must encode and decode exactly; the ones outside it (floats, simple values, integers beyond
 * signed 64 bits, indefinite lengths) must be refused with the matching rule.
 */
class Rfc8949AppendixATest {
  private static final HexFormat HEX = HexFormat.of();

  private record Known(CborValue value, String hex) {}

  private static CborText t(String s) {
    return new CborText(s);
  }

  private static CborInt i(long v) {
    return new CborInt(v);
  }

  private static List<Known> canonicalExamples() {
    List<CborValue> oneToTwentyFive = new ArrayList<>();
    for (int n = 1; n <= 25; n++) {
      oneToTwentyFive.add(i(n));
    }
    return List.of(
        new Known(i(0), "00"),
        new Known(i(1), "01"),
        new Known(i(10), "0a"),
        new Known(i(23), "17"),
        new Known(i(24), "1818"),
        new Known(i(25), "1819"),
        new Known(i(100), "1864"),
        new Known(i(1000), "1903e8"),
        new Known(i(1000000), "1a000f4240"),
        new Known(i(1000000000000L), "1b000000e8d4a51000"),
        new Known(
            new CborTag(2, CborBytes.of(HEX.parseHex("010000000000000000"))),
            "c249010000000000000000"),
        new Known(
            new CborTag(3, CborBytes.of(HEX.parseHex("010000000000000000"))),
            "c349010000000000000000"),
        new Known(i(-1), "20"),
        new Known(i(-10), "29"),
        new Known(i(-100), "3863"),
        new Known(i(-1000), "3903e7"),
        new Known(
            new CborTag(0, t("2013-03-21T20:04:00Z")),
            "c074323031332d30332d32315432303a30343a30305a"),
        new Known(new CborTag(1, i(1363896240)), "c11a514b67b0"),
        new Known(new CborTag(23, CborBytes.of(HEX.parseHex("01020304"))), "d74401020304"),
        new Known(new CborTag(24, CborBytes.of(HEX.parseHex("6449455446"))), "d818456449455446"),
        new Known(
            new CborTag(32, t("http://www.example.com")),
            "d82076687474703a2f2f7777772e6578616d706c652e636f6d"),
        new Known(CborBytes.of(new byte[0]), "40"),
        new Known(CborBytes.of(HEX.parseHex("01020304")), "4401020304"),
        new Known(t(""), "60"),
        new Known(t("a"), "6161"),
        new Known(t("IETF"), "6449455446"),
        new Known(t("\"\\"), "62225c"),
        new Known(t("\u00fc"), "62c3bc"),
        new Known(t("\u6c34"), "63e6b0b4"),
        new Known(t("\ud800\udd51"), "64f0908591"),
        new Known(CborArray.of(), "80"),
        new Known(CborArray.of(i(1), i(2), i(3)), "83010203"),
        new Known(
            CborArray.of(i(1), CborArray.of(i(2), i(3)), CborArray.of(i(4), i(5))),
            "8301820203820405"),
        new Known(
            new CborArray(oneToTwentyFive),
            "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
        new Known(CborMap.builder().build(), "a0"),
        new Known(CborMap.builder().put(1, i(2)).put(3, i(4)).build(), "a201020304"),
        new Known(
            CborMap.builder().put("a", 1).put("b", CborArray.of(i(2), i(3))).build(),
            "a26161016162820203"),
        new Known(
            CborArray.of(t("a"), CborMap.builder().put("b", "c").build()), "826161a161626163"),
        new Known(
            CborMap.builder()
                .put("e", "E")
                .put("d", "D")
                .put("c", "C")
                .put("b", "B")
                .put("a", "A")
                .build(),
            "a56161614161626142616361436164614461656145"));
  }

  @Test
  void appendixA_canonicalExamples_encodeAndDecodeExactly() {
    List<String> failures = new ArrayList<>();
    for (Known k : canonicalExamples()) {
      String encoded = HEX.formatHex(k.value().encode());
      if (!encoded.equals(k.hex())) {
        failures.add(k.value() + " encoded " + encoded + ", expected " + k.hex());
      }
      try {
        CborValue decoded = CanonicalCbor.decode(HEX.parseHex(k.hex()));
        if (!decoded.equals(k.value())) {
          failures.add(k.hex() + " decoded to " + decoded + ", expected " + k.value());
        }
      } catch (CborDecodeException e) {
        failures.add(k.hex() + " refused: " + e.getMessage());
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void appendixA_examplesOutsideTheProfile_areRefusedWithTheirRule() {
    Object[][] refused = {
      {"1bffffffffffffffff", CborRule.INTEGER_RANGE}, // 18446744073709551615
      {"3bffffffffffffffff", CborRule.INTEGER_RANGE}, // -18446744073709551616
      {"f90000", CborRule.FORBIDDEN_SIMPLE}, // 0.0
      {"f98000", CborRule.FORBIDDEN_SIMPLE}, // -0.0
      {"f93c00", CborRule.FORBIDDEN_SIMPLE}, // 1.0
      {"fb3ff199999999999a", CborRule.FORBIDDEN_SIMPLE}, // 1.1
      {"f93e00", CborRule.FORBIDDEN_SIMPLE}, // 1.5
      {"f97bff", CborRule.FORBIDDEN_SIMPLE}, // 65504.0
      {"fa47c35000", CborRule.FORBIDDEN_SIMPLE}, // 100000.0
      {"fa7f7fffff", CborRule.FORBIDDEN_SIMPLE}, // 3.4028234663852886e+38
      {"fb7e37e43c8800759c", CborRule.FORBIDDEN_SIMPLE}, // 1.0e+300
      {"f90001", CborRule.FORBIDDEN_SIMPLE}, // 5.960464477539063e-8
      {"f90400", CborRule.FORBIDDEN_SIMPLE}, // 0.00006103515625
      {"f9c400", CborRule.FORBIDDEN_SIMPLE}, // -4.0
      {"fbc010666666666666", CborRule.FORBIDDEN_SIMPLE}, // -4.1
      {"f97c00", CborRule.FORBIDDEN_SIMPLE}, // Infinity
      {"f97e00", CborRule.FORBIDDEN_SIMPLE}, // NaN
      {"f9fc00", CborRule.FORBIDDEN_SIMPLE}, // -Infinity
      {"f4", CborRule.FORBIDDEN_SIMPLE}, // false
      {"f5", CborRule.FORBIDDEN_SIMPLE}, // true
      {"f6", CborRule.FORBIDDEN_SIMPLE}, // null
      {"f7", CborRule.FORBIDDEN_SIMPLE}, // undefined
      {"f0", CborRule.FORBIDDEN_SIMPLE}, // simple(16)
      {"f8ff", CborRule.FORBIDDEN_SIMPLE}, // simple(255)
      {"c1fb41d452d9ec200000", CborRule.FORBIDDEN_SIMPLE}, // 1(1363896240.5)
      {"5f42010243030405ff", CborRule.INDEFINITE_LENGTH},
      {"7f657374726561646d696e67ff", CborRule.INDEFINITE_LENGTH},
      {"9fff", CborRule.INDEFINITE_LENGTH},
      {"9f018202039f0405ffff", CborRule.INDEFINITE_LENGTH},
      {"9f01820203820405ff", CborRule.INDEFINITE_LENGTH},
      {"83018202039f0405ff", CborRule.INDEFINITE_LENGTH},
      {"83019f0203ff820405", CborRule.INDEFINITE_LENGTH},
      {"9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", CborRule.INDEFINITE_LENGTH},
      {"bf61610161629f0203ffff", CborRule.INDEFINITE_LENGTH},
      {"826161bf61626163ff", CborRule.INDEFINITE_LENGTH},
      {"bf6346756ef563416d7421ff", CborRule.INDEFINITE_LENGTH},
    };
    List<String> failures = new ArrayList<>();
    for (Object[] r : refused) {
      String hex = (String) r[0];
      try {
        CborValue v = CanonicalCbor.decode(HEX.parseHex(hex));
        failures.add(hex + " accepted as " + v);
      } catch (CborDecodeException e) {
        if (e.rule() != r[1]) {
          failures.add(hex + " refused as " + e.rule() + ", expected " + r[1]);
        }
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void appendixA_mapWithIntegerKeys_isAlreadyInCanonicalOrder() throws Exception {
    // {1: 2, 3: 4}: keys 0x01 < 0x03.
    CborValue decoded = CanonicalCbor.decode(HEX.parseHex("a201020304"));
    assertThat(((CborMap) decoded).entries().stream().map(CborMap.Entry::key).toList())
        .containsExactly(i(1), i(3));
    assertThat(Arrays.equals(decoded.encode(), HEX.parseHex("a201020304"))).isTrue();
  }
}
