package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Property tests over random values: every canonical encoding round-trips exactly, and every
 * single-rule corruption of it is refused with the rule and offset it broke. Each test draws its
 * values from a fixed seed, named in any failure, so a failure reproduces.
 */
class CanonicalCborPropertyTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final int MAX_FAILURES_SHOWN = 20;

  /**
   * The default suite runs one case in this many of each property's full count (the first ones of
   * the same seed); {@code -Pslow} runs the full counts ({@link #everyProperty_atItsFullCount}).
   * The full counts cost 7 s of a two-core CI run, most of this module's test time.
   */
  private static final int DEFAULT_SHARE = 5;

  /** Runs {@code cases} random values through {@code check}, collecting failures. */
  private static void forRandomValues(long seed, int cases, ValueCheck check) {
    Random random = new Random(seed);
    RandomCbor gen = new RandomCbor(random, 4);
    List<String> failures = new ArrayList<>();
    for (int n = 0; n < cases; n++) {
      CborValue value = gen.value();
      int caseNumber = n;
      check.run(
          value,
          random,
          failure -> failures.add("seed " + seed + " case " + caseNumber + ": " + failure));
    }
    assertNoFailures(failures, seed);
  }

  /** Fails listing the first few failures: thousands of lines would bury the first one. */
  static void assertNoFailures(List<String> failures, long seed) {
    if (!failures.isEmpty()) {
      throw new AssertionError(
          failures.size()
              + " failures (seed "
              + seed
              + "), the first:\n  "
              + String.join(
                  "\n  ", failures.subList(0, Math.min(MAX_FAILURES_SHOWN, failures.size()))));
    }
  }

  @FunctionalInterface
  private interface ValueCheck {
    void run(CborValue value, Random random, Consumer<String> fail);
  }

  private static void expectRejected(
      byte[] input, CborRule rule, long offset, String what, Consumer<String> fail) {
    try {
      CborValue v = CanonicalCbor.decode(input);
      fail.accept(what + ": accepted " + HEX.formatHex(input) + " as " + v);
    } catch (CborDecodeException e) {
      if (e.rule() != rule || e.offset() != offset) {
        fail.accept(
            what
                + ": expected "
                + rule
                + " at "
                + offset
                + " but got "
                + e.rule()
                + " at "
                + e.offset()
                + " for "
                + abbreviate(input));
      }
    }
  }

  private static String abbreviate(byte[] b) {
    String h = HEX.formatHex(b);
    return h.length() <= 200 ? h : h.substring(0, 200) + "...(" + b.length + " bytes)";
  }

  @Test
  void encodeThenDecode_isTheIdentity_onValuesAndBytes() {
    encodeThenDecode_isTheIdentity_onValuesAndBytes(5000 / DEFAULT_SHARE);
  }

  private static void encodeThenDecode_isTheIdentity_onValuesAndBytes(int cases) {
    forRandomValues(
        0x5EED_0001L,
        cases,
        (value, random, fail) -> {
          byte[] encoded = value.encode();
          try {
            CborValue decoded = CanonicalCbor.decode(encoded);
            if (!decoded.equals(value)) {
              fail.accept("decoded " + decoded + " differs from " + value);
            }
            if (decoded.hashCode() != value.hashCode()) {
              fail.accept("hashCode differs for equal values " + value);
            }
            if (!Arrays.equals(decoded.encode(), encoded)) {
              fail.accept("re-encoding differs: " + abbreviate(encoded));
            }
          } catch (CborDecodeException e) {
            fail.accept("own encoding refused: " + e.getMessage() + " " + abbreviate(encoded));
          }
        });
  }

  @Test
  void encoder_agreesWithAnIndependentTestWriter() {
    encoder_agreesWithAnIndependentTestWriter(3000 / DEFAULT_SHARE);
  }

  private static void encoder_agreesWithAnIndependentTestWriter(int cases) {
    forRandomValues(
        0x5EED_0002L,
        cases,
        (value, random, fail) -> {
          byte[] ours = value.encode();
          byte[] theirs = NonCanonicalWriter.canonical(value);
          if (!Arrays.equals(ours, theirs)) {
            fail.accept(
                "encoders differ: ours " + abbreviate(ours) + " test " + abbreviate(theirs));
          }
        });
  }

  @Test
  void decode_rejectsEveryLongerArgumentWidth_asNonShortest() {
    decode_rejectsEveryLongerArgumentWidth_asNonShortest(1500 / DEFAULT_SHARE);
  }

  private static void decode_rejectsEveryLongerArgumentWidth_asNonShortest(int cases) {
    int[] checked = {0};
    forRandomValues(
        0x5EED_0003L,
        cases,
        (value, random, fail) -> {
          int heads = NonCanonicalWriter.countHeadsAndMaps(value)[0];
          for (int h = 0; h < heads; h++) {
            for (int width : new int[] {1, 2, 4, 8}) {
              Optional<NonCanonicalWriter.Variant> v =
                  NonCanonicalWriter.write(value, new NonCanonicalWriter.Widen(h, width));
              if (v.isPresent()) {
                checked[0]++;
                expectRejected(
                    v.get().bytes(),
                    CborRule.NON_SHORTEST,
                    v.get().offset(),
                    "head " + h + " widened to " + width,
                    fail);
              }
            }
          }
        });
    assertThat(checked[0]).as("variants checked").isGreaterThan(10_000 * cases / 1500);
  }

  @Test
  void decode_rejectsIndefiniteLengthStringsArraysAndMaps() {
    decode_rejectsIndefiniteLengthStringsArraysAndMaps(1500 / DEFAULT_SHARE);
  }

  private static void decode_rejectsIndefiniteLengthStringsArraysAndMaps(int cases) {
    int[] checked = {0};
    forRandomValues(
        0x5EED_0004L,
        cases,
        (value, random, fail) -> {
          int heads = NonCanonicalWriter.countHeadsAndMaps(value)[0];
          for (int h = 0; h < heads; h++) {
            Optional<NonCanonicalWriter.Variant> v =
                NonCanonicalWriter.write(value, new NonCanonicalWriter.Indefinite(h));
            if (v.isPresent()) {
              checked[0]++;
              expectRejected(
                  v.get().bytes(),
                  CborRule.INDEFINITE_LENGTH,
                  v.get().offset(),
                  "head " + h + " indefinite",
                  fail);
            }
          }
        });
    assertThat(checked[0]).as("variants checked").isGreaterThan(2_000 * cases / 1500);
  }

  @Test
  void decode_rejectsSwappedMapEntries_asUnsortedKeys() {
    decode_rejectsSwappedMapEntries_asUnsortedKeys(2000 / DEFAULT_SHARE);
  }

  private static void decode_rejectsSwappedMapEntries_asUnsortedKeys(int cases) {
    int[] checked = {0};
    forRandomValues(
        0x5EED_0005L,
        cases,
        (value, random, fail) -> {
          List<Integer> sizes = NonCanonicalWriter.mapSizes(value);
          for (int m = 0; m < sizes.size(); m++) {
            for (int i = 0; i + 1 < sizes.get(m); i++) {
              NonCanonicalWriter.Variant v =
                  NonCanonicalWriter.write(value, new NonCanonicalWriter.SwapEntries(m, i))
                      .orElseThrow();
              checked[0]++;
              expectRejected(
                  v.bytes(), CborRule.UNSORTED_KEYS, v.offset(), "map " + m + " swap " + i, fail);
            }
          }
        });
    assertThat(checked[0]).as("variants checked").isGreaterThan(1_000 * cases / 2000);
  }

  @Test
  void decode_rejectsARepeatedKey_asDuplicateKey() {
    decode_rejectsARepeatedKey_asDuplicateKey(2000 / DEFAULT_SHARE);
  }

  private static void decode_rejectsARepeatedKey_asDuplicateKey(int cases) {
    int[] checked = {0};
    forRandomValues(
        0x5EED_0006L,
        cases,
        (value, random, fail) -> {
          List<Integer> sizes = NonCanonicalWriter.mapSizes(value);
          for (int m = 0; m < sizes.size(); m++) {
            for (int i = 0; i + 1 < sizes.get(m); i++) {
              NonCanonicalWriter.Variant v =
                  NonCanonicalWriter.write(value, new NonCanonicalWriter.DuplicateKey(m, i))
                      .orElseThrow();
              checked[0]++;
              expectRejected(
                  v.bytes(), CborRule.DUPLICATE_KEY, v.offset(), "map " + m + " dup " + i, fail);
            }
          }
        });
    assertThat(checked[0]).as("variants checked").isGreaterThan(1_000 * cases / 2000);
  }

  @Test
  void decode_rejectsAnyTrailingByte() {
    decode_rejectsAnyTrailingByte(3000 / DEFAULT_SHARE);
  }

  private static void decode_rejectsAnyTrailingByte(int cases) {
    forRandomValues(
        0x5EED_0007L,
        cases,
        (value, random, fail) -> {
          byte[] encoded = value.encode();
          byte[] longer = Arrays.copyOf(encoded, encoded.length + 1 + random.nextInt(3));
          for (int i = encoded.length; i < longer.length; i++) {
            longer[i] = (byte) random.nextInt(256);
          }
          expectRejected(longer, CborRule.TRAILING_BYTES, encoded.length, "trailing", fail);
        });
  }

  @Test
  void decode_rejectsEveryTruncation_asTruncatedOrLengthLimit() {
    decode_rejectsEveryTruncation_asTruncatedOrLengthLimit(1500 / DEFAULT_SHARE);
  }

  private static void decode_rejectsEveryTruncation_asTruncatedOrLengthLimit(int cases) {
    int[] checked = {0};
    forRandomValues(
        0x5EED_0008L,
        cases,
        (value, random, fail) -> {
          byte[] encoded = value.encode();
          if (encoded.length > 4096) {
            return; // every prefix of a large value costs quadratic time; small ones suffice
          }
          for (int len = 0; len < encoded.length; len++) {
            byte[] prefix = Arrays.copyOf(encoded, len);
            checked[0]++;
            try {
              CborValue v = CanonicalCbor.decode(prefix);
              fail.accept("prefix of " + len + " accepted as " + v);
            } catch (CborDecodeException e) {
              boolean ruleOk = e.rule() == CborRule.TRUNCATED || e.rule() == CborRule.LENGTH_LIMIT;
              if (!ruleOk || e.offset() < 0 || e.offset() > len) {
                fail.accept(
                    "prefix of " + len + " of " + abbreviate(encoded) + ": " + e.getMessage());
              }
            }
          }
        });
    assertThat(checked[0]).as("prefixes checked").isGreaterThan(50_000 * cases / 1500);
  }

  @Test
  @Tag("slow")
  void everyProperty_atItsFullCount() {
    encodeThenDecode_isTheIdentity_onValuesAndBytes(5000);
    encoder_agreesWithAnIndependentTestWriter(3000);
    decode_rejectsEveryLongerArgumentWidth_asNonShortest(1500);
    decode_rejectsIndefiniteLengthStringsArraysAndMaps(1500);
    decode_rejectsSwappedMapEntries_asUnsortedKeys(2000);
    decode_rejectsARepeatedKey_asDuplicateKey(2000);
    decode_rejectsAnyTrailingByte(3000);
    decode_rejectsEveryTruncation_asTruncatedOrLengthLimit(1500);
  }
}
