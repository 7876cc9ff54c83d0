package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Hostile bytes: the decoder either returns a value that re-encodes to exactly the input, or throws
 * {@link CborDecodeException} with an offset inside the input. Nothing else, and quickly.
 */
class CanonicalCborFuzzTest {
  private static final HexFormat HEX = HexFormat.of();

  /** Head bytes worth over-sampling: every width, indefinite, reserved, simple and break. */
  private static final int[] INTERESTING = {
    0x00, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1f, 0x20, 0x38, 0x3b, 0x40, 0x58, 0x5b, 0x5f,
    0x60, 0x61, 0x78, 0x7b, 0x7f, 0x80, 0x81, 0x98, 0x9b, 0x9f, 0xa0, 0xa1, 0xb8, 0xbb, 0xbf,
    0xc0, 0xc2, 0xd8, 0xdb, 0xf4, 0xf6, 0xf9, 0xfb, 0xff, 0xc3, 0xe2, 0xed, 0xf0, 0x80, 0xbf
  };

  private static void fuzz(long seed, int cases) {
    Random random = new Random(seed);
    RandomCbor gen = new RandomCbor(random, 4);
    List<String> failures = new ArrayList<>();
    int accepted = 0;
    long startNanos = System.nanoTime();
    for (int n = 0; n < cases; n++) {
      byte[] input = random.nextInt(3) == 0 ? randomBytes(random) : mutate(gen, random);
      Outcome outcome = check(input);
      if (outcome.failure != null) {
        failures.add(
            "seed "
                + seed
                + " case "
                + n
                + " input "
                + HEX.formatHex(input)
                + ": "
                + outcome.failure);
      } else if (outcome.accepted) {
        accepted++;
      }
    }
    long millis = (System.nanoTime() - startNanos) / 1_000_000;
    CanonicalCborPropertyTest.assertNoFailures(failures, seed);
    // Some mutations are harmless (a flipped bit in a string), so some inputs must be accepted;
    // if none are, the mutator is broken and the round-trip half of the check never ran.
    assertThat(accepted).as("accepted inputs").isGreaterThan(cases / 100);
    assertThat(millis).as("milliseconds for %d cases", cases).isLessThan(cases / 2L + 2000);
  }

  private record Outcome(boolean accepted, String failure) {}

  private static Outcome check(byte[] input) {
    try {
      CborValue v = CanonicalCbor.decode(input);
      byte[] again = v.encode();
      return Arrays.equals(again, input)
          ? new Outcome(true, null)
          : new Outcome(true, "accepted but re-encodes to " + HEX.formatHex(again));
    } catch (CborDecodeException e) {
      if (e.offset() < 0 || e.offset() > input.length) {
        return new Outcome(false, "offset " + e.offset() + " outside the input: " + e.getMessage());
      }
      return new Outcome(false, null);
    } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
      return new Outcome(false, "threw " + e);
    }
  }

  private static byte[] randomBytes(Random random) {
    byte[] b = new byte[random.nextInt(48)];
    for (int i = 0; i < b.length; i++) {
      b[i] =
          random.nextBoolean()
              ? (byte) INTERESTING[random.nextInt(INTERESTING.length)]
              : (byte) random.nextInt(256);
    }
    return b;
  }

  private static byte[] mutate(RandomCbor gen, Random random) {
    byte[] b = gen.value().encode();
    if (b.length > 2048) {
      b = Arrays.copyOf(b, 2048); // a truncation is a mutation too, and keeps cases cheap
    }
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits; e++) {
      int kind = random.nextInt(5);
      if (b.length == 0) {
        kind = 2;
      }
      switch (kind) {
        case 0 -> b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8)); // bit flip
        case 1 ->
            b[random.nextInt(b.length)] = (byte) INTERESTING[random.nextInt(INTERESTING.length)];
        case 2 -> { // insert
          int at = random.nextInt(b.length + 1);
          byte[] c = new byte[b.length + 1];
          System.arraycopy(b, 0, c, 0, at);
          c[at] = (byte) random.nextInt(256);
          System.arraycopy(b, at, c, at + 1, b.length - at);
          b = c;
        }
        case 3 -> { // delete
          int at = random.nextInt(b.length);
          byte[] c = new byte[b.length - 1];
          System.arraycopy(b, 0, c, 0, at);
          System.arraycopy(b, at + 1, c, at, b.length - at - 1);
          b = c;
        }
        default -> b = Arrays.copyOf(b, random.nextInt(b.length + 1)); // truncate
      }
    }
    return b;
  }

  @Test
  void decode_onHostileBytes_returnsARoundTrippingValueOrThrowsTyped() {
    fuzz(0xF0_22L, 20_000);
  }

  @Test
  @Tag("slow")
  void decode_onHostileBytes_manySeeds() {
    for (long seed = 1; seed <= 50; seed++) {
      fuzz(seed, 20_000);
    }
  }
}
