package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The bounds that keep hostile input from exhausting the stack, the heap or the clock. */
class CanonicalCborLimitsTest {
  private static final HexFormat HEX = HexFormat.of();

  private static CborDecodeException rejection(byte[] input, CborLimits limits) {
    try {
      CborValue v = CanonicalCbor.decode(input, limits);
      return fail("accepted " + input.length + " bytes as " + v);
    } catch (CborDecodeException e) {
      return e;
    }
  }

  private static byte[] nested(int depth) {
    byte[] b = new byte[depth + 1];
    Arrays.fill(b, (byte) 0x81); // [[[ ... 0 ... ]]]
    b[depth] = 0;
    return b;
  }

  @Test
  void decode_atTheDepthLimit_acceptsAndOneDeeper_refusesAsTooDeep() throws Exception {
    int limit = CborLimits.DEFAULT.maxDepth();
    // limit-1 arrays around an integer is exactly `limit` levels.
    assertThat(CanonicalCbor.decode(nested(limit - 1))).isInstanceOf(CborArray.class);
    CborDecodeException e = rejection(nested(limit), CborLimits.DEFAULT);
    assertThat(e.rule()).isEqualTo(CborRule.TOO_DEEP);
    assertThat(e.offset()).isEqualTo(limit);
  }

  @Test
  void decode_whenHundredThousandNestedArrays_refusesAsTooDeep_notStackOverflow() {
    byte[] deep = new byte[100_000];
    Arrays.fill(deep, (byte) 0x81);
    assertThat(rejection(deep, CborLimits.DEFAULT).rule()).isEqualTo(CborRule.TOO_DEEP);
    // Also at the largest depth a caller may configure.
    CborLimits deepest = new CborLimits(CborLimits.MAX_DEPTH, 1 << 20, 1 << 20);
    assertThat(rejection(deep, deepest).rule()).isEqualTo(CborRule.TOO_DEEP);
  }

  @Test
  void decode_atTheLargestConfigurableDepth_doesNotOverflowTheStackOfASmallThread()
      throws Exception {
    CborLimits deepest = new CborLimits(CborLimits.MAX_DEPTH, 1 << 20, 1 << 20);
    // 256 KiB is smaller than any default thread stack on the platforms we build for. Fresh
    // threads, several times: a frame's size differs between interpreted and compiled code.
    for (int round = 0; round < 5; round++) {
      Object accepted =
          onSmallStack(() -> CanonicalCbor.decode(nested(CborLimits.MAX_DEPTH - 1), deepest));
      assertThat(accepted).as("round %d", round).isInstanceOf(CborArray.class);
      Object refused =
          onSmallStack(() -> CanonicalCbor.decode(nested(CborLimits.MAX_DEPTH), deepest));
      assertThat(refused)
          .as("round %d", round)
          .isInstanceOfSatisfying(
              CborDecodeException.class, e -> assertThat(e.rule()).isEqualTo(CborRule.TOO_DEEP));
    }
  }

  private interface Decode {
    Object run() throws Exception;
  }

  private static Object onSmallStack(Decode decode) throws InterruptedException {
    Object[] result = new Object[1];
    Thread t =
        new Thread(
            null,
            () -> {
              try {
                result[0] = decode.run();
              } catch (Throwable e) {
                result[0] = e;
              }
            },
            "small-stack",
            256 * 1024);
    t.start();
    t.join();
    return result[0];
  }

  @Test
  void limits_whenDepthBeyondWhatTheStackCanHold_refused() {
    assertThatThrownBy(() -> new CborLimits(CborLimits.MAX_DEPTH + 1, 100, 100))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CborLimits(0, 100, 100))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CborLimits(4, 0, 100))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CborLimits(4, 100, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void decode_whenTagsNestTooDeep_refusesAsTooDeep() {
    byte[] tags = new byte[1000];
    Arrays.fill(tags, (byte) 0xc1);
    assertThat(rejection(tags, CborLimits.DEFAULT).rule()).isEqualTo(CborRule.TOO_DEEP);
  }

  @Test
  void decode_whenDeclaredLengthsFarExceedTheInput_refusesAsLengthLimit() {
    String[] lies = {
      "5b4000000000000000", // byte string of 2^62 bytes
      "7b4000000000000000", // text of 2^62 bytes
      "5a7fffffff", // byte string of 2^31-1 bytes
      "5affffffff", // byte string of 2^32-1 bytes
      "9b0000000100000000", // array of 2^32 items
      "9affffffff", // array of 2^32-1 items
      "bb0000000100000000", // map of 2^32 entries
      "9b7fffffffffffffff", // array of 2^63-1 items
      "5bffffffffffffffff", // byte string of 2^64-1 bytes (negative as a long)
      "9bffffffffffffffff", // array of 2^64-1 items
    };
    for (String hex : lies) {
      CborDecodeException e = rejection(HEX.parseHex(hex), CborLimits.DEFAULT);
      assertThat(e.rule()).as(hex).isEqualTo(CborRule.LENGTH_LIMIT);
      assertThat(e.offset()).as(hex).isZero();
    }
  }

  @Test
  void decode_whenLengthLies_allocatesAlmostNothing() throws Exception {
    Allocation meter = Allocation.meter();
    assumeTrue(meter != null, "this JVM does not report per-thread allocation");
    byte[][] lies = {
      HEX.parseHex("5b4000000000000000"),
      HEX.parseHex("9b0000000100000000"),
      HEX.parseHex("bb0000000100000000"),
      HEX.parseHex("5a7fffffff"),
    };
    for (byte[] lie : lies) {
      rejection(lie, CborLimits.DEFAULT); // warm up
    }
    long before = meter.allocatedBytes();
    for (int i = 0; i < 100; i++) {
      for (byte[] lie : lies) {
        rejection(lie, CborLimits.DEFAULT);
      }
    }
    long perCall = (meter.allocatedBytes() - before) / 400;
    // An exception with its stack trace and message costs a few KiB; a lie honoured costs GiB.
    assertThat(perCall).as("bytes allocated per rejected lie").isLessThan(64 * 1024);
  }

  @Test
  void decode_whenInputLargerThanTheLimit_refusesAsInputTooLarge_beforeReading() {
    CborLimits small = new CborLimits(8, 16, 100);
    byte[] seventeen = new byte[17]; // would otherwise be 0 followed by trailing bytes
    CborDecodeException e = rejection(seventeen, small);
    assertThat(e.rule()).isEqualTo(CborRule.INPUT_TOO_LARGE);
    assertThat(e.offset()).isZero();
  }

  @Test
  void decode_atExactlyTheInputLimit_accepts() throws Exception {
    CborLimits small = new CborLimits(8, 16, 100);
    byte[] sixteen = new byte[16];
    sixteen[0] = 0x4f; // a byte string of 15 bytes fills the 16
    assertThat(CanonicalCbor.decode(sixteen, small)).isInstanceOf(CborBytes.class);
  }

  @Test
  void decode_whenMoreItemsThanTheLimit_refusesAsLengthLimit() throws Exception {
    CborLimits tenItems = new CborLimits(8, 1024, 10);
    byte[] nine = HEX.parseHex("880102030405060708"); // the array plus 8 integers
    assertThat(CanonicalCbor.decode(nine, tenItems)).isInstanceOf(CborArray.class);
    byte[] ten = HEX.parseHex("89010203040506070809");
    assertThat(CanonicalCbor.decode(ten, tenItems)).isInstanceOf(CborArray.class);
    CborDecodeException e = rejection(HEX.parseHex("8a0102030405060708090a"), tenItems);
    assertThat(e.rule()).isEqualTo(CborRule.LENGTH_LIMIT);
    assertThat(e.offset()).isEqualTo(10); // the eleventh item
  }

  @Test
  void decode_whenHugeKeysAreUnsortedOrRepeated_keepsTheMessageShort() {
    // Regression: the message once printed the whole key, so two 4 MiB keys cost 16 MiB of text.
    int n = 4 << 20;
    for (boolean repeat : new boolean[] {false, true}) {
      byte[] input = new byte[1 + 2 * (5 + n + 1)];
      int p = 0;
      input[p++] = (byte) 0xa2;
      for (int k = 0; k < 2; k++) {
        input[p++] = 0x5a; // byte string with a 4-byte length
        input[p++] = (byte) (n >>> 24);
        input[p++] = (byte) (n >>> 16);
        input[p++] = (byte) (n >>> 8);
        input[p++] = (byte) n;
        // first key all 0x01; second key 0x00 (unsorted) or 0x01 (repeated)
        Arrays.fill(input, p, p + n, (byte) (k == 0 || repeat ? 1 : 0));
        p += n;
        input[p++] = 0x00;
      }
      CborDecodeException e = rejection(input, CborLimits.DEFAULT);
      assertThat(e.rule()).isEqualTo(repeat ? CborRule.DUPLICATE_KEY : CborRule.UNSORTED_KEYS);
      assertThat(e.offset()).isEqualTo(1 + 5 + n + 1);
      assertThat(e.getMessage()).hasSizeLessThan(300);
    }
  }

  /** Per-thread allocation from {@code com.sun.management.ThreadMXBean}, read reflectively. */
  private record Allocation(Object bean, Method method) {
    static Allocation meter() {
      try {
        Object bean =
            Class.forName("java.lang.management.ManagementFactory")
                .getMethod("getThreadMXBean")
                .invoke(null);
        Method m =
            Class.forName("com.sun.management.ThreadMXBean")
                .getMethod("getCurrentThreadAllocatedBytes");
        return ((Long) m.invoke(bean)) >= 0 ? new Allocation(bean, m) : null;
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }

    long allocatedBytes() throws ReflectiveOperationException {
      return (Long) method.invoke(bean);
    }
  }
}
